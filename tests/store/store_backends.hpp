#pragma once
// The backends the store contract suite runs against. Each makes a fresh, empty store.

#include "adapters/store_postgres/postgres_store.hpp"
#include "adapters/store_sqlite/sqlite_store.hpp"

#include <cstdlib>

#include <filesystem>
#include <memory>
#include <string>

namespace agentgate::testing {

// A real SQLite file in a fresh temporary folder, removed afterwards.
class SqliteBackend {
 public:
  static bool Available() { return true; }

  SqliteBackend() {
    dir_ = std::filesystem::temp_directory_path() /
           ("agentgate-store-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++));
    std::filesystem::remove_all(dir_);
    path_ = (dir_ / "store.db").string();
  }
  ~SqliteBackend() { std::filesystem::remove_all(dir_); }

  std::unique_ptr<Store> Open(std::size_t connections = 4) {
    return std::unique_ptr<Store>(std::move(SqliteStore::Open(path_, connections).value()));
  }
  const std::string& path() const { return path_; }
  void Settle() {}  // SQLite's full-text counts are exact at once
  // What a store keeps that its interface does not show (retention): one count, read directly.
  std::int64_t Count(const std::string& select_count) {
    sqlite::Connection c(path_);
    auto s = c.Prepare(select_count);
    s.Step();
    return s.Int(0);
  }

 private:
  static inline int counter_ = 0;
  std::filesystem::path dir_;
  std::string path_;
};

// A real PostgreSQL server (AGENTGATE_TEST_POSTGRES_URL; `make test` starts one): each instance
// gets a fresh schema of its own, so tests running in parallel never see each other's rows.
class PostgresBackend {
 public:
  static const char* Url() { return std::getenv("AGENTGATE_TEST_POSTGRES_URL"); }
  static bool Available() { return Url() != nullptr && *Url() != '\0'; }

  PostgresBackend()
      : schema_("t_" + std::to_string(::getpid()) + "_" + std::to_string(counter_++)) {
    if (!Available()) return;
    pg::Connection admin(Url());
    admin.Exec("DROP SCHEMA IF EXISTS " + schema_ + " CASCADE");
    admin.Exec("CREATE SCHEMA " + schema_);
  }
  ~PostgresBackend() {
    if (!Available()) return;
    try {
      pg::Connection admin(Url());
      admin.Exec("DROP SCHEMA IF EXISTS " + schema_ + " CASCADE");
    } catch (const std::exception&) {
    }
  }

  std::unique_ptr<Store> Open(std::size_t connections = 4) {
    return std::unique_ptr<Store>(std::move(PostgresStore::Open(ScopedUrl(), connections).value()));
  }
  // What autovacuum does on its own once a table grew: statistics memory recall plans with.
  void Settle() { pg::Connection(ScopedUrl()).Exec("ANALYZE memories"); }
  std::int64_t Count(const std::string& select_count) {
    return pg::Connection(ScopedUrl()).Exec(select_count).Int(0, 0);
  }

 private:
  std::string ScopedUrl() const {
    return std::string(Url()) + (std::string(Url()).find('?') == std::string::npos ? "?" : "&") +
           "options=-csearch_path%3D" + schema_;
  }

  static inline int counter_ = 0;
  std::string schema_;
};

}  // namespace agentgate::testing
