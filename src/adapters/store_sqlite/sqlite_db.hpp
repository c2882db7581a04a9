#pragma once
// Thin RAII over the sqlite3 C API: a connection pool (one connection per concurrent caller,
// WAL mode so readers do not block the writer) and prepared statements with typed binds.

#include "adapters/store_common/connection_pool.hpp"
#include "adapters/store_common/row_view.hpp"
#include "adapters/store_common/store_errors.hpp"
#include "domain/error.hpp"

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace agentgate::sqlite {

// Bytes bound as a blob (Statement::Bind(AsBlob(bytes))), copied when bound.
struct BlobParam {
  std::string_view bytes;
};
inline BlobParam AsBlob(std::string_view bytes) {
  return BlobParam{bytes};
}

// A prepared statement in use. Statements come from their connection's cache: destroying one
// resets it for the next caller (which also ends the read it held) instead of finalizing it.
class Statement final : public RowView {
 public:
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  Statement(Statement&& other) noexcept
      : db_(other.db_),
        stmt_(std::exchange(other.stmt_, nullptr)),
        in_use_(std::exchange(other.in_use_, nullptr)) {}

  // Binds `values` to the parameters 1, 2, ... in order, in one call. Text the caller keeps,
  // unchanged, while the statement runs (a variable, a member, a literal) is bound without a copy;
  // a temporary string is copied. AsBlob(bytes) binds a blob, std::nullopt a NULL.
  template <class... Values>
  Statement& Bind(Values&&... values) {
    int index = 0;
    (BindAt(++index, std::forward<Values>(values)), ...);
    return *this;
  }
  // One parameter by its number: for SQL built at run time, whose parameters vary.
  Statement& BindAt(int index, std::string_view text);
  Statement& BindAt(int index, const char* text) { return BindAt(index, std::string_view(text)); }
  Statement& BindAt(int index, std::string&& text);
  Statement& BindAt(int index, BlobParam bytes);
  Statement& BindAt(int index, std::int64_t value);
  Statement& BindAt(int index, int value) {
    return BindAt(index, static_cast<std::int64_t>(value));
  }
  Statement& BindAt(int index, bool value) { return BindAt(index, value ? 1 : 0); }
  Statement& BindAt(int index, double value);
  Statement& BindAt(int index, std::optional<double> value);
  Statement& BindAt(int index, std::nullopt_t);

  bool Step();  // true while a row is available; throws on error
  void Run();   // steps to completion

  // Every row, or the first (none when there is no row), as `read` makes a record of it.
  template <class Read>
  auto All(Read&& read) -> std::vector<std::invoke_result_t<Read, const RowView&>> {
    std::vector<std::invoke_result_t<Read, const RowView&>> out;
    while (Step()) out.push_back(read(*this));
    return out;
  }
  template <class Read>
  auto One(Read&& read) -> std::optional<std::invoke_result_t<Read, const RowView&>> {
    if (!Step()) return std::nullopt;
    return read(*this);
  }

  // An INSERT or UPDATE ... RETURNING, run to its end: its row, none when it changed nothing.
  // Stepped to completion, so a statement that commits on its own reports a commit that failed
  // (a full disk) as an error, never a value that was not stored.
  template <class Read>
  auto Returning(Read&& read) -> std::optional<std::invoke_result_t<Read, const RowView&>> {
    std::optional<std::invoke_result_t<Read, const RowView&>> row;
    if (Step()) {
      row = read(*this);
      while (Step()) {
      }
    }
    return row;
  }

  // The current row.
  std::string Text(int column) const override;
  std::string Bytes(int column) const override;
  std::int64_t Int(int column) const override;
  double Double(int column) const override;
  bool Bool(int column) const override { return Int(column) != 0; }
  bool IsNull(int column) const override;

 private:
  friend class Connection;
  // `in_use` is the cache entry's flag, cleared on destruction; null for a statement of its own.
  Statement(sqlite3* db, sqlite3_stmt* stmt, bool* in_use)
      : db_(db), stmt_(stmt), in_use_(in_use) {}

  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
  bool* in_use_ = nullptr;
};

// A failed sqlite call; turned into an internal error (or kConflict for constraints) at the edge.
struct SqliteError : std::runtime_error {
  SqliteError(const std::string& what, int sqlite_code)
      : std::runtime_error(what), code(sqlite_code) {}
  int code;
  bool IsConstraint() const;
};

class WriterGate;
struct SharedFile;

class Connection {
 public:
  // Past `checkpoint_pages` in its WAL, a file is checkpointed on a thread of its own
  // (sqlite_checkpointer.hpp); the first connection to a file in this process sets it.
  explicit Connection(const std::string& path, int checkpoint_pages = 1000);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  void Exec(std::string_view sql);  // one or more statements, parsed each time (migrations)
  // The store's SQL is a fixed set of strings: each is parsed once per connection and reused.
  Statement Prepare(std::string_view sql);
  std::int64_t Changes() const;
  // Entered by this process's writers of the file before BEGIN IMMEDIATE.
  WriterGate& writers();

 private:
  struct Cached {
    sqlite3_stmt* stmt = nullptr;
    bool in_use = false;
  };

  sqlite3* db_ = nullptr;
  std::shared_ptr<SharedFile> file_;  // one per file path, shared by its connections
  std::map<std::string, Cached, std::less<>> statements_;  // nodes never move: in_use is stable
};

// BEGIN IMMEDIATE ... COMMIT, rolled back unless Commit() was called. IMMEDIATE takes the write
// lock up front so read-then-write decisions (claims, windows, reservations) are serialised, across
// processes too.
class WriteTransaction {
 public:
  explicit WriteTransaction(Connection& c);
  ~WriteTransaction();
  void Commit();

 private:
  Connection& connection_;
  std::unique_lock<std::mutex> writing_;
  bool done_ = false;
};

using ConnectionPool = agentgate::ConnectionPool<Connection>;

// Runs `fn(connection)` with a pooled connection; sqlite failures become Result errors.
template <class Fn>
auto WithConnection(ConnectionPool& pool, Fn&& fn) -> decltype(fn(std::declval<Connection&>())) {
  try {
    auto lease = pool.Acquire();
    return fn(*lease);
  } catch (const SqliteError& e) {
    if (e.IsConstraint()) return MakeError(ErrorCode::kConflict, "already exists");
    return StoreUnavailable("sqlite", e.what());
  }
}

}  // namespace agentgate::sqlite
