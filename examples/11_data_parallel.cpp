// Data-parallel training over MPI (tf.distribute.MultiWorkerMirroredStrategy, Horovod, JAX's
// pmean): example 08's spirals classifier, trained by every process of `mpirun -np N` on its
// shard of the batch. One sf::function is the step: forward pass and gradients on the shard, one
// all-reduce (the gradients and the loss in one flat buffer), the same adam update everywhere.
//
//   mpirun -np 4 ./example_11_data_parallel [epochs] [loss.tsv]
//
// Rank 0's initial weights are broadcast first (each process draws its own to show it), so the
// replicas start equal, and since every process applies the same averaged gradients they stay
// bit-for-bit equal: checked at the end. The loss of the whole batch, averaged over the shards
// of equal size, follows the single-process curve (`-np 1`) up to float rounding:
// tests/distributed compares the curves of 1, 2 and 4 processes. Rank 0 writes it to loss.tsv,
// and the trained weights and adam's state to a checkpoint (data_parallel_ckpt/ckpt-N.npz).
#define STATICFLOW_EAGER_MODE 0

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <random>
#include <string>

#include <xtensor/xfixed.hpp>
#include <xtensor/xtensor.hpp>

#include <staticflow/distributed/collectives.hpp>
#include <staticflow/distributed/data_parallel.hpp>
#include <staticflow/distributed/mpi.hpp>
#include <staticflow/io/checkpoint.hpp>
#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

constexpr std::size_t points_per_class = 200, n = 2 * points_per_class, hidden = 32;

int main(int argc, char** argv) {
  sf::distributed::mpi_environment env(argc, argv);  // MPI_Init ... MPI_Finalize
  return env.run([&] {                               // an exception on one rank stops them all
    const int epochs = argc > 1 ? std::atoi(argv[1]) : 3000;
    const std::string curve_path = argc > 2 ? argv[2] : "data_parallel_loss.tsv";
    sf::distributed::mpi comm;  // MPI_COMM_WORLD
    sf::distributed::data_parallel dp{comm};
    const bool lead = comm.rank() == 0;

    // --- the whole data set, made the same on every process; each trains on its rows ---
    std::mt19937 data_rng(2026);
    std::normal_distribution<float> noise(0.f, 0.03f);
    xt::xtensor<float, 2> x = xt::xtensor<float, 2>::from_shape({n, 2});
    xt::xtensor<float, 2> y_one_hot = xt::xtensor<float, 2>::from_shape({n, 2});
    xt::xtensor<std::int64_t, 1> labels = xt::xtensor<std::int64_t, 1>::from_shape({n});
    for (std::size_t i = 0; i < points_per_class; ++i) {
      const float r = 0.1f + 0.9f * float(i) / points_per_class, angle = 3.5f * float(i) / points_per_class * 3.14159265f;
      for (std::size_t c = 0; c < 2; ++c) {
        const std::size_t k = 2 * i + c;
        const float sign = c == 0 ? 1.f : -1.f;
        x(k, 0) = sign * r * std::cos(angle) + noise(data_rng);
        x(k, 1) = sign * r * std::sin(angle) + noise(data_rng);
        labels(k) = static_cast<std::int64_t>(c);
        y_one_hot(k, 0) = c == 0 ? 1.f : 0.f;
        y_one_hot(k, 1) = c == 1 ? 1.f : 0.f;
      }
    }
    const xt::xtensor<float, 2> x_shard = dp.shard(x), y_shard = dp.shard(y_one_hot);
    const xt::xtensor<std::int64_t, 1> labels_shard = dp.shard(labels);

    // --- the model: each process draws its own weights; rank 0's are broadcast to all ---
    std::mt19937 init_rng(7u + static_cast<unsigned>(comm.rank()));
    auto glorot = [&](std::size_t fan_in, std::size_t fan_out, auto& w) {
      std::uniform_real_distribution<float> u(-1.f, 1.f);
      const float limit = std::sqrt(6.f / float(fan_in + fan_out));
      for (auto& e : w) e = limit * u(init_rng);
    };
    xt::xtensor_fixed<float, xt::xshape<2, hidden>> w1_init;
    xt::xtensor_fixed<float, xt::xshape<hidden, 2>> w2_init;
    glorot(2, hidden, w1_init);
    glorot(hidden, 2, w2_init);
    sf::variable<float, 2, hidden> w1{w1_init};
    sf::variable<float, hidden> b1;
    sf::variable<float, hidden, 2> w2{w2_init};
    sf::variable<float, 2> b2;
    const bool differed = !dp.replicas_identical(w1, w2);
    dp.broadcast_variables(w1, b1, w2, b2);
    const bool equal = dp.replicas_identical(w1, b1, w2, b2);  // a collective: every process calls it
    if (lead)
      std::cout << comm.size() << " process(es), " << x_shard.shape(0) << " points each; initial weights "
                << (differed ? "differed" : "were equal") << ", broadcast from rank 0: replicas identical "
                << (equal ? "yes" : "NO") << "\n";

    auto logits_of = [&](auto inputs) { return sf::matmul(sf::tanh(sf::matmul(inputs, w1) + b1), w2) + b2; };
    auto loss_of = [&](auto inputs, auto targets) {
      return -sf::reduce_mean(sf::reduce_sum(targets * sf::log_softmax(logits_of(inputs)), sf::axes<1>{}));
    };
    sf::adam opt{0.01f};
    // one traced step: the shard's loss and gradients, one all-reduce (mean) of all of them, adam
    auto train_step = sf::function([&](auto inputs, auto targets) { return dp.minimize(opt, loss_of(inputs, targets), w1, b1, w2, b2); });
    // correct answers on this shard, summed over the processes
    auto correct = sf::function([&](auto inputs, auto truth) {
      return sf::all_reduce(sf::reduce_sum(sf::cast<int>(sf::argmax(logits_of(inputs), sf::axes<1>{}) == truth)), comm);
    });

    std::ofstream curve;
    if (lead) curve.open(curve_path), curve << "# epoch\tloss\n";  // checkpoints and logs: rank 0 only
    float loss = 0.f;
    for (int epoch = 1; epoch <= epochs; ++epoch) {
      loss = train_step(x_shard, y_shard);  // the whole batch's loss, before this step
      if (lead) curve << epoch << '\t' << loss << '\n';
      if (lead && (epoch == 1 || epoch % 100 == 0))
        std::cout << "epoch " << epoch << ": loss " << loss << "\n";
    }
    const std::int32_t right = correct(x_shard, labels_shard);  // every process calls it: a collective
    const bool identical = dp.replicas_identical(w1, b1, w2, b2);
    if (lead)
      std::cout << "accuracy " << float(right) / float(n) << "; traced the step " << train_step.tracing_count()
                << " time(s); replicas identical after training: " << (identical ? "yes" : "NO") << "\n";
    // the replicas are equal: one checkpoint, written by rank 0 (a run resumes by restoring it on
    // every rank, or on rank 0 and then dp.broadcast_variables / dp.broadcast_optimizer)
    if (lead) {
      sf::checkpoint ckpt;
      ckpt.track("w1", w1).track("b1", b1).track("w2", w2).track("b2", b2).track("optimizer", opt);
      std::cout << "rank 0 saved " << ckpt.save("data_parallel_ckpt/ckpt") << "\n";
    }
    return identical && std::isfinite(loss) ? 0 : 1;
  });
}
