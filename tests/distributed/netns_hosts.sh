#!/bin/bash
# Two "machines" on one: network namespaces joined by a bridge, each with its own address, its own
# loopback and no shared-memory transport between the ranks. mpirun (in the host's namespace)
# starts one Open MPI daemon in each namespace through an rsh agent that is `ip netns exec` (where
# a cluster would use ssh), and the ranks talk over TCP only (btl tcp,self): the program runs as
# it would on two hosts.
#
#   netns_hosts.sh MPIEXEC PROGRAM [ARGS...]
#
# Needs root (CAP_NET_ADMIN) and iproute2; exits 77 (CTest: skipped) without them. Checks first
# that the two ranks see two different network namespaces, neither of them the host's, then runs
# PROGRAM on the two hosts and exits with its status. Everything made is removed on exit.
set -u
mpiexec=$1; shift
if [ "$(id -u)" -ne 0 ] || ! command -v ip > /dev/null; then
  echo "netns_hosts: SKIP: needs root and iproute2 (ip netns)"; exit 77
fi
if ! "$mpiexec" --version 2>&1 | grep -q "Open MPI\|OpenRTE"; then
  echo "netns_hosts: SKIP: the launch below uses Open MPI's options (plm_rsh_agent, routed, rtc)"; exit 77
fi
tag="sf$(( $$ % 100000 ))"            # interface names: at most 15 characters
net="10.$(( 200 + $$ % 50 )).$(( $$ % 250 ))"
work=$(mktemp -d)
cleanup() {
  ip link del "${tag}br" 2> /dev/null
  for i in 1 2; do ip link del "${tag}v$i" 2> /dev/null; ip netns del "${tag}n$i" 2> /dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT
if ! ip netns add "${tag}n1" 2> "$work/err"; then
  echo "netns_hosts: SKIP: cannot make a network namespace here: $(cat "$work/err")"; exit 77
fi
set -e
ip netns add "${tag}n2"
ip link add "${tag}br" type bridge
ip addr add "$net.1/24" dev "${tag}br"
ip link set "${tag}br" up
for i in 1 2; do
  ip link add "${tag}v$i" type veth peer name "${tag}p$i"
  ip link set "${tag}p$i" netns "${tag}n$i"
  ip link set "${tag}v$i" master "${tag}br"
  ip link set "${tag}v$i" up
  ip netns exec "${tag}n$i" ip addr add "$net.$(( i + 1 ))/24" dev "${tag}p$i"
  ip netns exec "${tag}n$i" ip link set "${tag}p$i" up
  ip netns exec "${tag}n$i" ip link set lo up
done
# each host its own temporary directory: both share the machine's hostname, so in one /tmp their
# daemons would make the same session directory at the same moment (Open MPI 4.1's orted then
# fails with "mkdir ... File exists" now and then, as on two real hosts sharing /tmp it would)
mkdir "$work/tmp1" "$work/tmp2"
cat > "$work/agent" << AGENT
#!/bin/sh
# Open MPI's rsh agent: "agent HOST COMMAND..." runs COMMAND on HOST, here in its namespace
host=\$1; shift
case "\$host" in
  $net.2) exec ip netns exec ${tag}n1 env TMPDIR=$work/tmp1 sh -c "\$*" ;;
  $net.3) exec ip netns exec ${tag}n2 env TMPDIR=$work/tmp2 sh -c "\$*" ;;
esac
echo "agent: no host \$host" >&2; exit 1
AGENT
chmod +x "$work/agent"
set +e
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# routed direct: each daemon talks to mpirun itself; rtc ^hwloc: two daemons of one machine would
# share hwloc's topology segment (Open MPI 4.1's orted crashes there now and then)
launch=("$mpiexec" -H "$net.2,$net.3" -np 2 --mca plm_rsh_agent "$work/agent" --mca routed direct --mca rtc ^hwloc
        --mca btl tcp,self --mca btl_tcp_if_include "$net.0/24" --mca oob_tcp_if_include "$net.0/24")
host_ns=$(readlink /proc/self/ns/net)
rank_ns=$(timeout 60 "${launch[@]}" readlink /proc/self/ns/net | sort -u)
echo "netns_hosts: the host is $host_ns; the ranks are in: $(echo $rank_ns)"
if [ "$(echo "$rank_ns" | grep -c net:)" -ne 2 ] || echo "$rank_ns" | grep -qF "$host_ns"; then
  echo "netns_hosts: FAILED: the two ranks are not in two namespaces of their own"; exit 1
fi
echo "netns_hosts: running $* on hosts $net.2 and $net.3 (TCP only)"
timeout 600 "${launch[@]}" "$@"
status=$?
echo "netns_hosts: exit $status"
exit $status
