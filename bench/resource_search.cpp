// search_resources on an agent version with many long resources: builds the version's index once
// (as loading a version does) and times Q searches through the same code the tool uses. A search
// runs on the turn's I/O thread, so its p99 is what a busy server pays per tool call.
//
//   build-release/bench/resource_search_bench [resources=200] [words_each=400] [Q=2000]
#include "domain/agent/resource_search.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  using namespace agentgate;
  const int resources = argc > 1 ? std::atoi(argv[1]) : 200;
  const int words_each = argc > 2 ? std::atoi(argv[2]) : 400;
  const int queries = argc > 3 ? std::atoi(argv[3]) : 2000;
  std::mt19937 rng(7);
  const auto word = [&] { return "word" + std::to_string(rng() % 3000); };
  std::vector<TrustedResource> config;
  for (int i = 0; i < resources; ++i) {
    std::string text;
    for (int w = 0; w < words_each; ++w) text += word() + " ";
    config.push_back({"doc" + std::to_string(i), "Policy " + std::to_string(i), text});
  }
  const auto built_at = std::chrono::steady_clock::now();
  const ResourceIndex index(config);
  const double build_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - built_at)
          .count();
  std::vector<double> ms;
  std::size_t found = 0;
  for (int q = 0; q < queries; ++q) {
    const std::string query = "which policy covers " + word() + " and " + word() + "?";
    const auto started = std::chrono::steady_clock::now();
    found += index.Search(query, 3).size();
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
            .count());
  }
  std::sort(ms.begin(), ms.end());
  std::printf("command: %s %d %d %d\n", argv[0], resources, words_each, queries);
  std::printf(
      "%d resources x %d words: index built in %.1f ms; search p50 %.3f ms, p99 %.3f ms "
      "(%zu hits)\n",
      resources, words_each, build_ms, ms[ms.size() / 2], ms[ms.size() * 99 / 100], found);
  return found == 0 ? 1 : 0;
}
