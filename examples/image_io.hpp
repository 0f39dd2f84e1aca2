// Minimal writers for 8-bit palette images: PNG (deflate's stored blocks, no
// compression) and animated GIF (LZW codes of 9 bits, a clear code often
// enough that the code size never grows, so no compression either). Enough
// for an example's frames without a dependency; not a general image library.
#pragma once

#include <array>
#include <cstdint>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace example_images {

using palette = std::array<std::array<std::uint8_t, 3>, 256>;

namespace detail {

inline std::uint32_t crc32(const std::uint8_t* p, std::size_t n, std::uint32_t crc = 0) {
  crc = ~crc;
  for (std::size_t i = 0; i < n; ++i) {
    crc ^= p[i];
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

inline void put32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) out.push_back(static_cast<std::uint8_t>(v >> s));
}

inline void png_chunk(std::vector<std::uint8_t>& out, const char* type, const std::vector<std::uint8_t>& data) {
  put32(out, static_cast<std::uint32_t>(data.size()));
  const std::size_t at = out.size();
  out.insert(out.end(), type, type + 4);
  out.insert(out.end(), data.begin(), data.end());
  put32(out, crc32(out.data() + at, data.size() + 4));
}

inline void write_file(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!f) throw std::runtime_error("cannot write " + path);
}

}  // namespace detail

// pixels: width x height palette indices, row by row.
inline void write_png(const std::string& path, int width, int height, const std::vector<std::uint8_t>& pixels,
                      const palette& colors) {
  std::vector<std::uint8_t> out = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  std::vector<std::uint8_t> header;
  detail::put32(header, static_cast<std::uint32_t>(width));
  detail::put32(header, static_cast<std::uint32_t>(height));
  header.insert(header.end(), {8, 3, 0, 0, 0});  // 8 bits, palette, deflate, no filter, no interlace
  detail::png_chunk(out, "IHDR", header);
  std::vector<std::uint8_t> plte;
  for (const auto& c : colors) plte.insert(plte.end(), c.begin(), c.end());
  detail::png_chunk(out, "PLTE", plte);
  std::vector<std::uint8_t> raw;  // each row: filter type 0, then the row
  for (int y = 0; y < height; ++y) {
    raw.push_back(0);
    raw.insert(raw.end(), pixels.begin() + std::ptrdiff_t(y) * width, pixels.begin() + std::ptrdiff_t(y + 1) * width);
  }
  std::vector<std::uint8_t> z = {0x78, 0x01};  // zlib header; deflate stored blocks
  for (std::size_t at = 0; at < raw.size() || at == 0; at += 65535) {
    const std::size_t len = raw.size() - at < 65535 ? raw.size() - at : 65535;
    z.push_back(at + len == raw.size() ? 1 : 0);
    z.insert(z.end(), {static_cast<std::uint8_t>(len), static_cast<std::uint8_t>(len >> 8),
                       static_cast<std::uint8_t>(~len), static_cast<std::uint8_t>(~len >> 8)});
    z.insert(z.end(), raw.begin() + std::ptrdiff_t(at), raw.begin() + std::ptrdiff_t(at + len));
    if (raw.empty()) break;
  }
  std::uint32_t a = 1, b = 0;  // Adler-32
  for (const std::uint8_t v : raw) {
    a = (a + v) % 65521;
    b = (b + a) % 65521;
  }
  detail::put32(z, (b << 16) | a);
  detail::png_chunk(out, "IDAT", z);
  detail::png_chunk(out, "IEND", {});
  detail::write_file(path, out);
}

// An animated GIF, frames added one by one, written by finish().
class gif_writer {
 public:
  gif_writer(int width, int height, const palette& colors, int delay_centiseconds)
      : width_(width), height_(height), delay_(delay_centiseconds) {
    for (const char* c = "GIF89a"; *c != 0; ++c) out_.push_back(static_cast<std::uint8_t>(*c));
    put16(width);
    put16(height);
    out_.insert(out_.end(), {0xF7, 0, 0});  // a global table of 256 colours
    for (const auto& c : colors) out_.insert(out_.end(), c.begin(), c.end());
    out_.insert(out_.end(), {0x21, 0xFF, 11});  // loop forever
    for (const char* c = "NETSCAPE2.0"; *c != 0; ++c) out_.push_back(static_cast<std::uint8_t>(*c));
    out_.insert(out_.end(), {3, 1, 0, 0, 0});
  }

  void add(const std::vector<std::uint8_t>& pixels) {
    out_.insert(out_.end(), {0x21, 0xF9, 4, 0});  // graphic control: the frame's delay
    put16(delay_);
    out_.insert(out_.end(), {0, 0, 0x2C, 0, 0, 0, 0});
    put16(width_);
    put16(height_);
    out_.push_back(0);
    out_.push_back(8);  // LZW minimum code size
    std::vector<std::uint8_t> data;
    std::uint32_t bits = 0;
    int count = 0;
    auto emit = [&](unsigned code) {
      bits |= code << count;
      count += 9;
      while (count >= 8) {
        data.push_back(static_cast<std::uint8_t>(bits));
        bits >>= 8;
        count -= 8;
      }
    };
    const unsigned clear = 256, end = 257;
    for (std::size_t i = 0; i < pixels.size(); ++i) {
      if (i % 254 == 0) emit(clear);  // the table never reaches 512 entries
      emit(pixels[i]);
    }
    emit(end);
    if (count > 0) data.push_back(static_cast<std::uint8_t>(bits));
    for (std::size_t at = 0; at < data.size(); at += 255) {
      const std::size_t len = data.size() - at < 255 ? data.size() - at : 255;
      out_.push_back(static_cast<std::uint8_t>(len));
      out_.insert(out_.end(), data.begin() + std::ptrdiff_t(at), data.begin() + std::ptrdiff_t(at + len));
    }
    out_.push_back(0);
  }

  void finish(const std::string& path) {
    out_.push_back(0x3B);
    detail::write_file(path, out_);
  }

 private:
  void put16(int v) {
    out_.push_back(static_cast<std::uint8_t>(v));
    out_.push_back(static_cast<std::uint8_t>(v >> 8));
  }
  int width_, height_, delay_;
  std::vector<std::uint8_t> out_;
};

}  // namespace example_images
