// Memory recall against the real stores: seeds N facts into one (org, env, agent, group) scope,
// plus as many spread over other scopes, then times Q recalls of realistic messages through the
// same code a turn uses (RecallTerms, then Store::RecallMemories). Prints p50/p99 per store.
//
//   build-release/bench/memory_recall_bench [N=100000] [Q=2000]
//   AGENTGATE_TEST_POSTGRES_URL=postgresql://... adds the PostgreSQL store (its own schema).
#include "domain/agent/memory_recall.hpp"
#include "adapters/store_postgres/pg_db.hpp"
#include "adapters/store_postgres/postgres_store.hpp"
#include "adapters/store_sqlite/sqlite_store.hpp"

#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace agentgate;

// Words with a Zipf-like spread: a few very common ones, a long tail of rare ones.
class Vocabulary {
 public:
  explicit Vocabulary(std::mt19937& rng) : rng_(rng) {
    static const char* kSyllables[] = {"ka", "lo", "mi", "ne", "ru", "ta", "vo", "si",
                                       "de", "pa", "qu", "zo", "fe", "gi", "ho", "ju"};
    for (int i = 0; i < 20000; ++i) {
      std::string w;
      for (int n = i + 17; n > 0 || w.size() < 4; n /= 16) w += kSyllables[n % 16];
      words_.push_back(w);
    }
  }
  const std::string& Word() {
    // rank ~ exp(uniform * ln(size)): rank 1 is ~10,000 times likelier than rank 10,000
    std::uniform_real_distribution<double> u(0, std::log(static_cast<double>(words_.size())));
    const auto rank = static_cast<std::size_t>(std::exp(u(rng_))) - 1;
    return words_[std::min(rank, words_.size() - 1)];
  }
  std::string Sentence(int words) {
    std::string out;
    for (int i = 0; i < words; ++i) out += (i ? " " : "") + Word();
    return out;
  }

 private:
  std::mt19937& rng_;
  std::vector<std::string> words_;
};

void Seed(Store& store, const MemoryScope& scope, int facts, Vocabulary& words, int& turn) {
  constexpr int kPerCommit = 2000;
  for (int done = 0; done < facts; done += kPerCommit) {
    TurnCommit commit;
    commit.turn = TurnRecord{"bench-" + std::to_string(turn++),
                             "",
                             scope.org_id,
                             scope.env,
                             scope.agent_id,
                             1,
                             1,
                             1,
                             "",
                             false,
                             1,
                             1,
                             1,
                             0,
                             "{}"};
    for (int i = done; i < std::min(facts, done + kPerCommit); ++i)
      commit.facts.push_back(RememberedFact{scope, words.Sentence(8 + i % 10), i});
    if (auto ok = store.CommitTurn(commit); !ok) {
      std::fprintf(stderr, "seeding failed: %s\n", ok.error().message.c_str());
      std::exit(1);
    }
  }
}

// `settle` runs once seeding is done: what the store would do on its own before queries come
// (PostgreSQL's autovacuum analyzing the grown table).
void Run(const char* name, Store& store, int facts, int queries,
         const std::function<void()>& settle) {
  std::mt19937 rng(7);
  Vocabulary words(rng);
  int turn = 0;
  const MemoryScope scope{"bench", "prod", "bot", "team"};
  const auto seed_start = std::chrono::steady_clock::now();
  Seed(store, scope, facts, words, turn);
  for (int other = 0; other < 10; ++other)  // the same words in other scopes
    Seed(store, MemoryScope{"bench", "prod", "bot", "team-" + std::to_string(other)}, facts / 10,
         words, turn);
  const double seeded =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - seed_start).count();
  settle();
  std::vector<double> ms;
  std::size_t hits = 0;
  for (int q = 0; q < queries; ++q) {
    const std::string message = "Please tell me about " + words.Sentence(6) + " again?";
    const auto start = std::chrono::steady_clock::now();
    const auto found = store.RecallMemories(scope, RecallTerms(message), 10);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                     .count());
    if (!found) {
      std::fprintf(stderr, "recall failed: %s\n", found.error().message.c_str());
      std::exit(1);
    }
    hits += found->size();
  }
  std::sort(ms.begin(), ms.end());
  const auto at = [&](double p) { return ms[static_cast<std::size_t>(p * (ms.size() - 1))]; };
  std::printf(
      "%-10s facts in scope %d (+%d elsewhere), seeded in %.1f s; %d recalls: p50 %.2f ms, "
      "p99 %.2f ms, max %.2f ms, %.1f facts returned on average\n",
      name, facts, facts, seeded, queries, at(0.5), at(0.99), ms.back(),
      static_cast<double>(hits) / queries);
}

}  // namespace

int main(int argc, char** argv) {
  const int facts = argc > 1 ? std::atoi(argv[1]) : 100000;
  const int queries = argc > 2 ? std::atoi(argv[2]) : 2000;
  std::printf("command: %s %d %d\n", argv[0], facts, queries);
  const auto dir =
      std::filesystem::temp_directory_path() / ("agentgate-recall-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    auto sqlite = SqliteStore::Open((dir / "agentgate.db").string(), 2);
    if (!sqlite) return std::fprintf(stderr, "%s\n", sqlite.error().message.c_str()), 1;
    (void)(*sqlite)->CreateOrg(OrgRecord{"bench", "Bench", std::nullopt, 1});
    Run("sqlite", **sqlite, facts, queries, [] {});
  }
  std::filesystem::remove_all(dir);
  if (const char* url = std::getenv("AGENTGATE_TEST_POSTGRES_URL"); url != nullptr && *url) {
    const std::string schema = "bench_recall_" + std::to_string(::getpid());
    pg::Connection(url).Exec("CREATE SCHEMA " + schema);
    {
      const std::string scoped = std::string(url) +
                                 (std::string(url).find('?') == std::string::npos ? "?" : "&") +
                                 "options=-csearch_path%3D" + schema;
      auto postgres = PostgresStore::Open(scoped, 2);
      if (!postgres) return std::fprintf(stderr, "%s\n", postgres.error().message.c_str()), 1;
      (void)(*postgres)->CreateOrg(OrgRecord{"bench", "Bench", std::nullopt, 1});
      Run("postgresql", **postgres, facts, queries,
          [&] { pg::Connection(scoped).Exec("ANALYZE memories"); });
    }
    pg::Connection(url).Exec("DROP SCHEMA " + schema + " CASCADE");
  }
  return 0;
}
