#pragma once
// Thin RAII over libpq: connections in a bounded pool (reconnected when the server restarted),
// parameterised queries in text format, transactions, and errors mapped to the API's codes.

#include "adapters/store_common/connection_pool.hpp"
#include "adapters/store_common/row_view.hpp"
#include "adapters/store_common/store_errors.hpp"
#include "domain/error.hpp"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

struct pg_conn;
struct pg_result;

namespace agentgate::pg {

struct PgError : std::runtime_error {
  PgError(const std::string& what, std::string state)
      : std::runtime_error(what), sqlstate(std::move(state)) {}
  std::string sqlstate;
  bool IsConstraint() const { return sqlstate.starts_with("23"); }
};

using Param = std::optional<std::string>;  // nullopt is SQL NULL

Param P(const std::string& s);
Param P(std::int64_t v);
Param P(int v);
Param P(double v);
Param P(std::optional<double> v);
Param Bytes(const std::string& raw);  // bytea in hex form
// A PostgreSQL array literal ("{...}") of the values, each quoted: one parameter that carries a
// column's values for many rows (`unnest($1::text[])`), so one prepared statement serves any count.
Param ArrayOf(const std::vector<Param>& values);

class Rows;

// One row of a result, for the shared row readers.
class Row final : public RowView {
 public:
  Row(const Rows& rows, int index) : rows_(rows), index_(index) {}
  std::string Text(int column) const override;
  std::string Bytes(int column) const override;
  std::int64_t Int(int column) const override;
  double Double(int column) const override;
  bool Bool(int column) const override;
  bool IsNull(int column) const override;

 private:
  const Rows& rows_;
  int index_;
};

class Rows {
 public:
  explicit Rows(pg_result* r);
  ~Rows();
  Rows(Rows&& other) noexcept;
  Rows(const Rows&) = delete;

  int size() const;
  bool empty() const { return size() == 0; }
  std::string Text(int row, int col) const;
  std::string Bytes(int row, int col) const;  // a bytea column selected as is
  std::int64_t Int(int row, int col) const;
  double Double(int row, int col) const;
  bool IsNull(int row, int col) const;
  std::int64_t Affected() const;

  // Every row, or the first (none when there is none), as `read` makes a record of it.
  template <class Read>
  auto All(Read&& read) const -> std::vector<std::invoke_result_t<Read, const RowView&>> {
    std::vector<std::invoke_result_t<Read, const RowView&>> out;
    out.reserve(static_cast<std::size_t>(size()));
    for (int i = 0; i < size(); ++i) out.push_back(read(Row(*this, i)));
    return out;
  }
  template <class Read>
  auto One(Read&& read) const -> std::optional<std::invoke_result_t<Read, const RowView&>> {
    if (empty()) return std::nullopt;
    return read(Row(*this, 0));
  }

 private:
  pg_result* r_;
};

class Connection {
 public:
  explicit Connection(const std::string& url);
  ~Connection();
  Connection(const Connection&) = delete;

  Rows Exec(const std::string& sql, const std::vector<Param>& params = {});
  // Planned with its values on every call, never prepared: for statements whose best plan
  // depends on them (a full-text match's selectivity), which a cached generic plan cannot see.
  Rows ExecPlannedForValues(const std::string& sql, const std::vector<Param>& params);
  void ExecScript(const std::string& sql);       // several statements, no parameters (migrations)
  std::string Literal(const std::string& text);  // quoted and escaped for ExecScript
  // Reconnects when the server went away (a restart); true when usable.
  bool EnsureOpen();
  // For a connection that LISTENs: the payloads of the notifications that arrive within `wait`
  // (none when none do); throws PgError once the connection is lost.
  // `wake_fd`, when readable, ends the wait early (a listener told to stop).
  std::vector<std::string> WaitForNotices(std::chrono::milliseconds wait, int wake_fd = -1);

 private:
  void ConfigureSession();
  Rows Run(const std::string* prepared_name, const std::string& sql,
           const std::vector<Param>& params);
  const std::string* PreparedName(const std::string& sql, int params);
  pg_conn* c_ = nullptr;
  std::unordered_map<std::string, std::string> prepared_;  // SQL text -> statement name
};

class Transaction {
 public:
  explicit Transaction(Connection& c) : c_(c) { c_.Exec("BEGIN"); }
  // Also serialises transactions that decide about the same key (released at commit or
  // rollback); begins and locks in one round trip.
  Transaction(Connection& c, const std::string& lock_key)
      : Transaction(c, std::vector<std::string>{lock_key}) {}
  // Several keys are locked in the order given: callers that lock more than one pass them sorted,
  // so two transactions never wait on each other in a cycle.
  Transaction(Connection& c, const std::vector<std::string>& lock_keys);
  ~Transaction();
  void Commit();

 private:
  void Rollback() noexcept;
  Connection& c_;
  bool done_ = false;
};

using Pool = agentgate::ConnectionPool<Connection>;

template <class Fn>
auto WithConnection(Pool& pool, Fn&& fn) -> decltype(fn(std::declval<Connection&>())) {
  try {
    auto lease = pool.Acquire();
    if (!lease->EnsureOpen()) throw PgError("postgresql: the server is unreachable", "08006");
    return fn(*lease);
  } catch (const PgError& e) {
    if (e.IsConstraint()) return MakeError(ErrorCode::kConflict, "already exists");
    return StoreUnavailable("postgresql", e.what());
  }
}

}  // namespace agentgate::pg
