// Fuzz target for the stream's hold-back (docs/runs.md, "Safety on a stream"): the input's first
// byte picks the chunking, the rest is the reply; the properties of
// tests/support/reply_stream_property.hpp (nothing released at or past a match; the checks from
// what was released agree with the whole text's) must hold for every detector and bounded block
// pattern, or the target aborts. libFuzzer entry point; standalone_driver.cpp runs it in CI.
#include "support/reply_stream_property.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  static const agentgate::SafetyPolicy policy = [] {
    agentgate::SafetyPolicy p;
    p.detect_credit_card = true;
    p.detect_secret = true;
    p.block_patterns = {"(?i)internal only", R"(\bproject (alpha|beta)\b)",
                        "[0-9]{3}-[0-9]{2}-[0-9]{4}", "DROP TABLE$"};
    return p;
  }();
  // Piece sizes from the first byte: 1 to 8, cycling through its bits.
  std::vector<std::size_t> pieces;
  for (int bit = 0; bit < 8; bit += 3) pieces.push_back(1 + ((data[0] >> bit) & 7));
  const std::string_view reply(reinterpret_cast<const char*>(data) + 1, size - 1);
  // A model's text arrives JSON-decoded, so whole UTF-8 (its pieces may still split characters).
  if (!agentgate::testing::WholeCharacters(reply)) return 0;
  std::string broken =
      agentgate::testing::CheckReplyStream(policy, reply, pieces, data[0] % 5 == 0 ? 6 : 1000);
  if (broken.empty()) broken = agentgate::testing::CheckChecksFromReleased(policy, reply, pieces);
  if (!broken.empty()) {
    std::fprintf(stderr, "reply stream: %s; input (hex):", broken.c_str());
    for (std::size_t i = 0; i < size; ++i) std::fprintf(stderr, " %02x", data[i]);
    std::fprintf(stderr, "\n");
    std::abort();
  }
  return 0;
}
