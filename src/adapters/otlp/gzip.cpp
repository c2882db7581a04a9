#include "adapters/otlp/gzip.hpp"

#include <libdeflate.h>

#include <cstdint>
#include <new>

namespace agentgate::otlp {

// The fastest level: spans compress well anyway, and the exporter shares the machine's cores with
// the turns.
GzipCompressor::GzipCompressor() : compressor_(libdeflate_alloc_compressor(1)) {
  if (compressor_ == nullptr) throw std::bad_alloc();
}

GzipCompressor::~GzipCompressor() {
  libdeflate_free_compressor(compressor_);
}

std::string GzipCompressor::Compress(std::string_view data) {
  const std::size_t bound = libdeflate_gzip_compress_bound(compressor_, data.size());
  if (out_.size() < bound) out_.resize(bound);
  const std::size_t size =
      libdeflate_gzip_compress(compressor_, data.data(), data.size(), out_.data(), out_.size());
  return std::string(out_.data(), size);  // size 0 only if the bound were wrong
}

std::string Gunzip(std::string_view data) {
  if (data.size() < 18) return {};  // a gzip header and trailer at least
  // The trailer's last four bytes: the original size (mod 2^32; tests' bodies are far smaller).
  const auto* tail = reinterpret_cast<const unsigned char*>(data.data() + data.size() - 4);
  const std::size_t size =
      tail[0] | (tail[1] << 8) | (tail[2] << 16) | (std::uint32_t{tail[3]} << 24);
  libdeflate_decompressor* decompressor = libdeflate_alloc_decompressor();
  if (decompressor == nullptr) return {};
  std::string out(size, '\0');
  std::size_t actual = 0;
  const auto result = libdeflate_gzip_decompress(decompressor, data.data(), data.size(), out.data(),
                                                 out.size(), &actual);
  libdeflate_free_decompressor(decompressor);
  if (result != LIBDEFLATE_SUCCESS) return {};
  out.resize(actual);
  return out;
}

}  // namespace agentgate::otlp
