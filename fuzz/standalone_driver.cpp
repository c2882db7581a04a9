// Runs a libFuzzer target without libFuzzer: every seed file, then a fixed number of
// deterministic mutations of them (byte flips, splices of tokens that matter to the target).
// Usage: fuzz_driver ITERATIONS SEED_FILE...
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

// Tokens that matter to the targets: path tricks and XML for the gateway, JSON for request bodies.
const std::vector<std::string> kTokens = {
    "..",  "%2e",    "%2E%2e",     "/",  "//",  "\\",       "\r\n",   "%0d%0a",  "?",     "#",
    "://", "mdapi/", "/services/", "<",  ">",   "xmlns=\"", ":Fault", "&amp;",   "\0",    "%",
    "\"",  "{",      "}",          "[",  "]",   ":",        ",",      "null",    "true",  "[]",
    "{}",  "\"\"",   "1e999",      "-0", "0.5", "-1",       "1e300",  "\\u0000", "\"x\":"};

void Run(const std::string& input) {
  LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s ITERATIONS SEED_FILE...\n", argv[0]);
    return 2;
  }
  const long iterations = std::atol(argv[1]);
  std::vector<std::string> seeds;
  for (int i = 2; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    seeds.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    Run(seeds.back());
  }
  std::mt19937 rng(20261121);
  for (long n = 0; n < iterations; ++n) {
    std::string input = seeds[rng() % seeds.size()];
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      const std::size_t at = input.empty() ? 0 : rng() % (input.size() + 1);
      switch (rng() % 3) {
        case 0:
          if (!input.empty()) input[at % input.size()] = static_cast<char>(rng() % 256);
          break;
        case 1:
          input.insert(at, kTokens[rng() % kTokens.size()]);
          break;
        default:
          if (!input.empty()) input.erase(at % input.size(), 1 + rng() % 4);
      }
    }
    Run(input);
  }
  std::printf("fuzz: %zu seeds and %ld mutations ran without a finding\n", seeds.size(),
              iterations);
  return 0;
}
