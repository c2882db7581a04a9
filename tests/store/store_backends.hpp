#pragma once
// The backends the store contract suite runs against. Each makes a fresh, empty store.

#include "adapters/store_sqlite/sqlite_store.hpp"

#include <filesystem>
#include <memory>
#include <string>

namespace agentgate::testing {

// A real SQLite file in a fresh temporary folder, removed afterwards.
class SqliteBackend {
 public:
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

 private:
  static inline int counter_ = 0;
  std::filesystem::path dir_;
  std::string path_;
};

}  // namespace agentgate::testing
