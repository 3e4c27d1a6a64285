// staticflow/io/npz.hpp -- NumPy's .npz archive: a zip file of .npy arrays, what np.savez writes
// and np.load reads. sf::checkpoint (io/checkpoint.hpp) keeps its values in one.
//
// Written here rather than taken from a compression library, because what is needed is small:
// entries are *stored* (zip method 0: what np.savez writes; np.savez_compressed's deflate is
// refused with a clear error), each with the CRC-32 the zip format requires, checked on reading
// so that a damaged file is an error and not wrong weights. Archives that need zip64 records
// (over 4 GiB, or more than 65535 entries) are refused too. Arrays are C-ordered and
// little-endian, as NumPy writes them on every common machine.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "staticflow/core/errors.hpp"

namespace staticflow::detail::npz {

static_assert(std::endian::native == std::endian::little,
              "staticflow: .npz files are read and written on little-endian machines only");

/// zip's CRC-32 (the reflected polynomial 0xEDB88320), eight bytes a step: table k gives the
/// CRC of a byte followed by k zero bytes, so eight lookups replace eight dependent steps
/// (slicing-by-8: about 2 GB/s here, against 0.35 GB/s a byte at a time).
inline constexpr auto crc_tables = [] {
  std::array<std::array<std::uint32_t, 256>, 8> t{};
  for (std::uint32_t n = 0; n < 256; ++n) {
    std::uint32_t c = n;
    for (int k = 0; k < 8; ++k) c = (c & 1u) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    t[0][n] = c;
  }
  for (std::size_t k = 1; k < 8; ++k)
    for (std::size_t n = 0; n < 256; ++n) t[k][n] = (t[k - 1][n] >> 8) ^ t[0][t[k - 1][n] & 0xFFu];
  return t;
}();

/// Continues zip's CRC-32 over n more bytes (start with crc = 0).
inline std::uint32_t crc32(std::uint32_t crc, const void* data, std::size_t n) {
  const auto& t = crc_tables;
  const auto* p = static_cast<const unsigned char*>(data);
  crc = ~crc;
  for (; n >= 8; p += 8, n -= 8) {
    std::uint32_t lo, hi;  // little-endian words (checked above)
    std::memcpy(&lo, p, 4);
    std::memcpy(&hi, p + 4, 4);
    lo ^= crc;
    crc = t[7][lo & 0xFFu] ^ t[6][(lo >> 8) & 0xFFu] ^ t[5][(lo >> 16) & 0xFFu] ^ t[4][lo >> 24] ^ t[3][hi & 0xFFu] ^
          t[2][(hi >> 8) & 0xFFu] ^ t[1][(hi >> 16) & 0xFFu] ^ t[0][hi >> 24];
  }
  for (; n > 0; ++p, --n) crc = t[0][(crc ^ *p) & 0xFFu] ^ (crc >> 8);
  return ~crc;
}

/// NumPy's type string of a dtype name ("float32" -> "<f4"); empty for an unknown name.
constexpr std::string_view descr_of(std::string_view dtype_name) {
  if (dtype_name == "bool") return "|b1";
  if (dtype_name == "int32") return "<i4";
  if (dtype_name == "int64") return "<i8";
  if (dtype_name == "float32") return "<f4";
  if (dtype_name == "float64") return "<f8";
  return {};
}

/// Bytes per element of a dtype name (0 for an unknown name).
constexpr std::size_t element_bytes(std::string_view dtype_name) {
  return dtype_name == "bool" ? 1 : dtype_name == "int32" || dtype_name == "float32" ? 4
         : dtype_name == "int64" || dtype_name == "float64"                          ? 8
                                                                                     : 0;
}

/// The dtype name of a NumPy type string ("<f4" -> "float32"; "=f4" and "f4" too); the type
/// string itself when staticflow has no such dtype.
inline std::string dtype_of_descr(std::string_view descr) {
  std::string_view kind = descr;
  if (!kind.empty() && (kind[0] == '<' || kind[0] == '|' || kind[0] == '=')) kind.remove_prefix(1);
  if (kind == "b1" || kind == "?") return "bool";
  if (kind == "i4") return "int32";
  if (kind == "i8") return "int64";
  if (kind == "f4") return "float32";
  if (kind == "f8") return "float64";
  return std::string(descr);
}

/// "(2, 3)", "(4,)", "()"; `dyn` extents print as None.
inline std::string shape_text(const std::size_t* ext, std::size_t rank) {
  std::string s = "(";
  for (std::size_t d = 0; d < rank; ++d) {
    s += d ? ", " : "";
    s += ext[d] == static_cast<std::size_t>(-1) ? std::string("None") : std::to_string(ext[d]);
  }
  return s + (rank == 1 ? ",)" : ")");
}

/// The .npy header (format 1.0) of a C-ordered array: magic, version, length, and the dict
/// padded with spaces so that the data starts at a multiple of 64 bytes.
inline std::string npy_header(std::string_view descr, const std::size_t* ext, std::size_t rank) {
  std::string dict = "{'descr': '" + std::string(descr) + "', 'fortran_order': False, 'shape': " + shape_text(ext, rank) + ", }";
  const std::size_t unpadded = 10 + dict.size() + 1;
  dict.append((64 - unpadded % 64) % 64, ' ');
  dict += '\n';
  std::string header("\x93NUMPY\x01\x00", 8);
  header += static_cast<char>(dict.size() & 0xFFu);
  header += static_cast<char>(dict.size() >> 8);
  return header + dict;
}

/// One .npy array inside an archive: its header fields and where its bytes are.
struct array_view {
  std::string dtype;  // staticflow's name ("float32"), or NumPy's type string if it has none
  bool fortran_order = false;
  std::vector<std::size_t> shape;
  const unsigned char* data = nullptr;
  std::size_t bytes = 0;
};

/// Reads a .npy file of n bytes at p (formats 1.0, 2.0 and 3.0); `name` is for the messages.
inline array_view parse_npy(const unsigned char* p, std::size_t n, const std::string& name) {
  auto fail = [&](const std::string& why) { return checkpoint_error("'" + name + "' is not a valid .npy array: " + why); };
  if (n < 10 || std::memcmp(p, "\x93NUMPY", 6) != 0) throw fail("no .npy magic string");
  std::size_t length = 0, start = 0;
  if (p[6] == 1) {
    length = p[8] | (std::size_t(p[9]) << 8), start = 10;
  } else if ((p[6] == 2 || p[6] == 3) && n >= 12) {
    length = p[8] | (std::size_t(p[9]) << 8) | (std::size_t(p[10]) << 16) | (std::size_t(p[11]) << 24), start = 12;
  } else {
    throw fail("unknown format version " + std::to_string(p[6]));
  }
  if (start + length > n) throw fail("the header runs past the end");
  const std::string_view dict(reinterpret_cast<const char*>(p + start), length);
  auto value_of = [&](std::string_view key) {
    for (const char quote : {'\'', '"'}) {
      const std::string quoted = std::string(1, quote) + std::string(key) + std::string(1, quote);
      if (const auto at = dict.find(quoted); at != std::string_view::npos) {
        auto colon = dict.find(':', at + quoted.size());
        if (colon == std::string_view::npos) break;
        auto v = dict.substr(colon + 1);
        while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
        return v;
      }
    }
    throw fail("the header has no '" + std::string(key) + "'");
  };
  array_view a;
  const auto descr = value_of("descr");
  if (descr.empty() || (descr[0] != '\'' && descr[0] != '"')) throw fail("'descr' is not a string");
  const auto descr_end = descr.find(descr[0], 1);
  if (descr_end == std::string_view::npos) throw fail("'descr' is not a string");
  a.dtype = dtype_of_descr(descr.substr(1, descr_end - 1));
  a.fortran_order = value_of("fortran_order").starts_with("True");
  auto shape = value_of("shape");
  if (shape.empty() || shape[0] != '(') throw fail("'shape' is not a tuple");
  for (std::size_t i = 1; i < shape.size() && shape[i] != ')';) {
    if (shape[i] >= '0' && shape[i] <= '9') {
      std::size_t v = 0;
      for (; i < shape.size() && shape[i] >= '0' && shape[i] <= '9'; ++i) v = v * 10 + std::size_t(shape[i] - '0');
      a.shape.push_back(v);
    } else if (shape[i] == ',' || shape[i] == ' ' || shape[i] == 'L') {
      ++i;
    } else {
      throw fail("'shape' is not a tuple of integers");
    }
  }
  a.data = p + start + length;
  a.bytes = n - start - length;
  return a;
}

/// Writes a zip archive of stored entries to an open file, as it goes.
class zip_writer {
 public:
  explicit zip_writer(std::FILE* file, std::string path) : file_(file), path_(std::move(path)) {}

  /// One entry whose contents are the parts one after another.
  void add(const std::string& name, std::initializer_list<std::pair<const void*, std::size_t>> parts) {
    std::uint64_t size = 0;
    std::uint32_t crc = 0;
    for (const auto& [data, n] : parts) size += n, crc = crc32(crc, data, n);
    if (size > 0xFFFFFFFEu || offset_ + size + 30 + name.size() > 0xFFFFFFFEu || entries_.size() == 0xFFFE)
      throw checkpoint_error("checkpoint: writing '" + path_ + "': over 4 GiB or 65534 arrays (zip64 is not supported)");
    entries_.push_back({name, crc, static_cast<std::uint32_t>(size), static_cast<std::uint32_t>(offset_)});
    put32(0x04034b50u);  // local file header
    put16(20), put16(0), put16(0);  // version needed, flags, method: stored
    put16(0), put16(0x21);          // time, date: 1980-01-01 00:00
    put32(crc), put32(static_cast<std::uint32_t>(size)), put32(static_cast<std::uint32_t>(size));
    put16(static_cast<std::uint16_t>(name.size())), put16(0);
    put(name.data(), name.size());
    for (const auto& [data, n] : parts) put(data, n);
  }

  /// The central directory and its end record.
  void finish() {
    const std::uint64_t directory_offset = offset_;
    for (const auto& e : entries_) {
      put32(0x02014b50u);
      put16(20), put16(20), put16(0), put16(0), put16(0), put16(0x21);
      put32(e.crc), put32(e.size), put32(e.size);
      put16(static_cast<std::uint16_t>(e.name.size())), put16(0), put16(0), put16(0), put16(0);
      put32(0), put32(e.offset);
      put(e.name.data(), e.name.size());
    }
    const std::uint64_t directory_size = offset_ - directory_offset;
    if (offset_ > 0xFFFFFFFEu)
      throw checkpoint_error("checkpoint: writing '" + path_ + "': over 4 GiB (zip64 is not supported)");
    put32(0x06054b50u);
    put16(0), put16(0), put16(static_cast<std::uint16_t>(entries_.size())), put16(static_cast<std::uint16_t>(entries_.size()));
    put32(static_cast<std::uint32_t>(directory_size)), put32(static_cast<std::uint32_t>(directory_offset)), put16(0);
  }

 private:
  struct entry {
    std::string name;
    std::uint32_t crc, size, offset;
  };

  void put(const void* data, std::size_t n) {
    // in pieces of 1 MiB: the file grows as it is written (what a crash mid-save leaves is partial)
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t done = 0; done < n;) {
      const std::size_t k = std::min<std::size_t>(n - done, std::size_t(1) << 20);
      if (std::fwrite(p + done, 1, k, file_) != k) throw checkpoint_error("checkpoint: writing '" + path_ + "' failed");
      done += k;
    }
    offset_ += n;
  }
  void put16(std::uint16_t v) {
    const unsigned char b[2] = {static_cast<unsigned char>(v), static_cast<unsigned char>(v >> 8)};
    put(b, 2);
  }
  void put32(std::uint32_t v) {
    put16(static_cast<std::uint16_t>(v & 0xFFFFu));
    put16(static_cast<std::uint16_t>(v >> 16));
  }

  std::FILE* file_;
  std::string path_;
  std::uint64_t offset_ = 0;
  std::vector<entry> entries_;
};

/// A zip archive read whole into memory; the entries' bytes checked against their CRC-32.
class zip_archive {
 public:
  struct entry {
    std::string name;
    const unsigned char* data;
    std::size_t size;
  };

  explicit zip_archive(const std::string& path) : path_(path) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) throw checkpoint_error("checkpoint: cannot open '" + path + "' for reading");
    // one read into a buffer of the file's size, left uninitialized until then
    long size = -1;
    if (std::fseek(f, 0, SEEK_END) == 0) size = std::ftell(f);
    std::rewind(f);
    bool failed = size < 0;
    if (size > 0) {
      bytes_.reset(new unsigned char[static_cast<std::size_t>(size)]);
      size_ = std::fread(bytes_.get(), 1, static_cast<std::size_t>(size), f);
      failed = size_ != static_cast<std::size_t>(size);
    }
    std::fclose(f);
    if (failed) throw checkpoint_error("checkpoint: reading '" + path + "' failed");
    parse();
  }

  const std::vector<entry>& entries() const { return entries_; }

 private:
  checkpoint_error damaged(const std::string& why) const {
    return checkpoint_error("checkpoint: '" + path_ + "' is not a readable .npz file: " + why);
  }
  std::uint32_t u16(std::size_t at) const { return bytes_[at] | (std::uint32_t(bytes_[at + 1]) << 8); }
  std::uint32_t u32(std::size_t at) const { return u16(at) | (u16(at + 2) << 16); }

  void parse() {
    const std::size_t n = size_;
    if (n < 22) throw damaged("too short for a zip archive");
    std::size_t end = n - 22;  // the end record: the last one, before a comment of up to 64 KiB
    while (u32(end) != 0x06054b50u) {
      if (end == 0 || n - end > 22 + 0xFFFF) throw damaged("no zip end record (truncated?)");
      --end;
    }
    const std::size_t count = u16(end + 10), directory_size = u32(end + 12), directory = u32(end + 16);
    if (count == 0xFFFF || directory == 0xFFFFFFFFu) throw damaged("zip64 archives are not supported");
    if (directory + directory_size > end) throw damaged("the central directory runs past its end (truncated?)");
    for (std::size_t k = 0, at = directory; k < count; ++k) {
      if (at + 46 > end || u32(at) != 0x02014b50u) throw damaged("bad central directory entry");
      const std::size_t method = u16(at + 10), crc = u32(at + 16), packed = u32(at + 20), size = u32(at + 24);
      const std::size_t name_length = u16(at + 28), skip = u16(at + 30) + u16(at + 32), local = u32(at + 42);
      if (at + 46 + name_length > end) throw damaged("bad central directory entry");
      std::string name(reinterpret_cast<const char*>(&bytes_[at + 46]), name_length);
      at += 46 + name_length + skip;
      if (method != 0)
        throw damaged("'" + name + "' is compressed (np.savez_compressed); staticflow reads stored entries (np.savez)");
      if (packed == 0xFFFFFFFFu || size == 0xFFFFFFFFu || local == 0xFFFFFFFFu) throw damaged("zip64 archives are not supported");
      if (local + 30 > n || u32(local) != 0x04034b50u) throw damaged("bad local header of '" + name + "'");
      const std::size_t data = local + 30 + u16(local + 26) + u16(local + 28);
      if (packed != size || data + size > n) throw damaged("'" + name + "' runs past the end of the file (truncated?)");
      if (crc32(0, &bytes_[data], size) != crc) throw damaged("the checksum of '" + name + "' does not match (the file is damaged)");
      entries_.push_back({std::move(name), bytes_.get() + data, size});
    }
  }

  std::string path_;
  std::unique_ptr<unsigned char[]> bytes_;
  std::size_t size_ = 0;
  std::vector<entry> entries_;
};

}  // namespace staticflow::detail::npz
