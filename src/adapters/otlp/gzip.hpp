#pragma once
// gzip (RFC 1952) by libdeflate, for export bodies (a collector takes Content-Encoding: gzip).
// libdeflate, not zlib: a whole batch is compressed at once, which is what it is built for, and
// it is the cheaper of the two for that (docs/decisions.md, Tracing).

#include <string>
#include <string_view>
#include <vector>

struct libdeflate_compressor;

namespace agentgate::otlp {

// One thread's compressor, kept for its buffers (made once, not per batch).
class GzipCompressor {
 public:
  GzipCompressor();
  ~GzipCompressor();
  GzipCompressor(const GzipCompressor&) = delete;
  GzipCompressor& operator=(const GzipCompressor&) = delete;

  std::string Compress(std::string_view data);

 private:
  libdeflate_compressor* compressor_;
  std::vector<char> out_;  // the bound's room, kept between batches
};

std::string Gunzip(std::string_view data);  // for tests; empty on a bad stream

}  // namespace agentgate::otlp
