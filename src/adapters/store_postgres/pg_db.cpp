#include "adapters/store_postgres/pg_db.hpp"

#include "adapters/store_common/statement_count.hpp"
#include "domain/hex.hpp"

#include <libpq-fe.h>

#include <poll.h>

#include <cstdio>
#include <cstdlib>

namespace agentgate::pg {
namespace {

// Frees `r` and throws when the statement failed; copies the error out first.
void ThrowOnFailure(pg_result* r, pg_conn* c) {
  const auto status = PQresultStatus(r);
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return;
  const char* field = r != nullptr ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : nullptr;
  const std::string state = field != nullptr ? field : "08000";
  const std::string message = r != nullptr ? PQresultErrorMessage(r) : PQerrorMessage(c);
  PQclear(r);
  throw PgError("postgresql: " + message, state);
}

}  // namespace

Param P(const std::string& s) {
  return s;
}
Param P(std::int64_t v) {
  return std::to_string(v);
}
Param P(int v) {
  return std::to_string(v);
}
Param P(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return std::string(buf);
}
Param P(std::optional<double> v) {
  return v ? P(*v) : Param{};
}
Param Bytes(const std::string& raw) {
  return "\\x" + ToHex(raw);  // bytea hex input
}
Param ArrayOf(const std::vector<Param>& values) {
  std::string out = "{";
  for (const auto& value : values) {
    if (out.size() > 1) out += ',';
    if (!value) {
      out += "NULL";
      continue;
    }
    out += '"';
    for (char ch : *value) {
      if (ch == '"' || ch == '\\') out += '\\';
      out += ch;
    }
    out += '"';
  }
  out += '}';
  return out;
}

Rows::Rows(pg_result* r) : r_(r) {}
Rows::~Rows() {
  PQclear(r_);
}
Rows::Rows(Rows&& other) noexcept : r_(std::exchange(other.r_, nullptr)) {}
int Rows::size() const {
  return PQntuples(r_);
}
std::string Rows::Text(int row, int col) const {
  return std::string(PQgetvalue(r_, row, col), PQgetlength(r_, row, col));
}
std::int64_t Rows::Int(int row, int col) const {
  return std::strtoll(PQgetvalue(r_, row, col), nullptr, 10);
}
double Rows::Double(int row, int col) const {
  return std::strtod(PQgetvalue(r_, row, col), nullptr);
}
bool Rows::IsNull(int row, int col) const {
  return PQgetisnull(r_, row, col) != 0;
}
std::int64_t Rows::Affected() const {
  const char* n = PQcmdTuples(r_);
  return n != nullptr && *n != '\0' ? std::strtoll(n, nullptr, 10) : 0;
}

std::string Rows::Bytes(int row, int col) const {
  std::size_t length = 0;
  unsigned char* raw =
      PQunescapeBytea(reinterpret_cast<const unsigned char*>(PQgetvalue(r_, row, col)), &length);
  std::string out(reinterpret_cast<char*>(raw), length);
  PQfreemem(raw);
  return out;
}

std::string Row::Text(int column) const {
  return rows_.Text(index_, column);
}
std::string Row::Bytes(int column) const {
  return rows_.Bytes(index_, column);
}
std::int64_t Row::Int(int column) const {
  return rows_.Int(index_, column);
}
double Row::Double(int column) const {
  return rows_.Double(index_, column);
}
bool Row::Bool(int column) const {
  return rows_.Text(index_, column) == "t";
}
bool Row::IsNull(int column) const {
  return rows_.IsNull(index_, column);
}

Connection::Connection(const std::string& url) {
  // Defaults the URL may override: a bounded connect (a store thread never waits long for a
  // database that is down) and the name the server lists us under.
  const char* keys[] = {"connect_timeout", "dbname", "fallback_application_name", nullptr};
  const char* values[] = {"5", url.c_str(), "agentgate", nullptr};
  c_ = PQconnectdbParams(keys, values, /*expand_dbname=*/1);
  if (PQstatus(c_) != CONNECTION_OK) {
    std::string message = PQerrorMessage(c_);
    PQfinish(c_);
    c_ = nullptr;
    throw PgError("cannot connect to PostgreSQL: " + message, "08000");
  }
  PQsetNoticeProcessor(
      c_, [](void*, const char*) {}, nullptr);  // notices are not our log
  ConfigureSession();
}

void Connection::ConfigureSession() {
  Exec("SET client_min_messages = warning");
}

Connection::~Connection() {
  PQfinish(c_);
}

bool Connection::EnsureOpen() {
  // An idle connection has nothing to read unless the server said goodbye: a restart or
  // pg_terminate_backend sends a FATAL message, then closes the socket. Reading both marks the
  // connection bad, so it is reset here instead of failing the caller's first statement.
  for (int reads = 0; reads < 4 && PQstatus(c_) == CONNECTION_OK; ++reads) {
    pollfd idle{PQsocket(c_), POLLIN, 0};
    if (::poll(&idle, 1, 0) <= 0 || PQconsumeInput(c_) == 0) break;
  }
  if (PQstatus(c_) == CONNECTION_OK) {
    PQisBusy(c_);  // parses anything read while idle, so it is never taken for the next reply
    return true;
  }
  PQreset(c_);
  if (PQstatus(c_) != CONNECTION_OK) return false;
  prepared_.clear();  // a reset starts a new session: no prepared statements, default settings
  ConfigureSession();
  return true;
}

std::vector<std::string> Connection::WaitForNotices(std::chrono::milliseconds wait, int wake_fd) {
  std::vector<std::string> payloads;
  pollfd readable[2] = {{PQsocket(c_), POLLIN, 0}, {wake_fd, POLLIN, 0}};
  const int ready = ::poll(readable, wake_fd >= 0 ? 2 : 1, static_cast<int>(wait.count()));
  if (ready > 0 && (readable[0].revents & POLLIN) != 0 && PQconsumeInput(c_) == 0)
    throw PgError("postgresql: " + std::string(PQerrorMessage(c_)), "08006");
  if (PQstatus(c_) != CONNECTION_OK) throw PgError("postgresql: the connection was lost", "08006");
  while (PGnotify* notice = PQnotifies(c_)) {
    payloads.emplace_back(notice->extra != nullptr ? notice->extra : "");
    PQfreemem(notice);
  }
  return payloads;
}

Rows Connection::Exec(const std::string& sql, const std::vector<Param>& params) {
  return Run(PreparedName(sql, static_cast<int>(params.size())), sql, params);
}

Rows Connection::ExecPlannedForValues(const std::string& sql, const std::vector<Param>& params) {
  return Run(nullptr, sql, params);
}

Rows Connection::Run(const std::string* prepared_name, const std::string& sql,
                     const std::vector<Param>& params) {
  store_statements::Count();
  std::vector<const char*> values;
  values.reserve(params.size());
  for (const auto& p : params) values.push_back(p ? p->c_str() : nullptr);
  const int n = static_cast<int>(values.size());
  pg_result* r =
      prepared_name != nullptr
          ? PQexecPrepared(c_, prepared_name->c_str(), n, values.data(), nullptr, nullptr, 0)
          : PQexecParams(c_, sql.c_str(), n, nullptr, values.data(), nullptr, nullptr, 0);
  ThrowOnFailure(r, c_);
  return Rows(r);
}

// Statements are fixed strings in the store's code, so each is parsed and planned once per
// session instead of on every call. Transaction control and anything unusual runs unprepared.
const std::string* Connection::PreparedName(const std::string& sql, int params) {
  constexpr std::size_t kMaxPrepared = 256;
  if (const auto found = prepared_.find(sql); found != prepared_.end()) return &found->second;
  const bool plannable = sql.starts_with("SELECT") || sql.starts_with("INSERT") ||
                         sql.starts_with("UPDATE") || sql.starts_with("DELETE") ||
                         sql.starts_with("WITH");
  if (!plannable || prepared_.size() >= kMaxPrepared) return nullptr;
  std::string name = "ag" + std::to_string(prepared_.size());
  pg_result* prepared = PQprepare(c_, name.c_str(), sql.c_str(), params, nullptr);
  ThrowOnFailure(prepared, c_);
  PQclear(prepared);
  return &prepared_.emplace(sql, std::move(name)).first->second;
}

void Connection::ExecScript(const std::string& sql) {
  store_statements::Count();
  pg_result* r = PQexec(c_, sql.c_str());
  ThrowOnFailure(r, c_);
  PQclear(r);
}

std::string Connection::Literal(const std::string& text) {
  char* quoted = PQescapeLiteral(c_, text.data(), text.size());
  if (quoted == nullptr) throw PgError("postgresql: " + std::string(PQerrorMessage(c_)), "22000");
  std::string out(quoted);
  PQfreemem(quoted);
  return out;
}

Transaction::~Transaction() {
  if (!done_) Rollback();
}

void Transaction::Rollback() noexcept {
  try {
    c_.Exec("ROLLBACK");
  } catch (const PgError&) {  // a broken connection has no transaction left to end
  }
}

void Transaction::Commit() {
  c_.Exec("COMMIT");
  done_ = true;
}

Transaction::Transaction(Connection& c, const std::vector<std::string>& lock_keys) : c_(c) {
  try {
    std::string script = "BEGIN";
    for (const auto& key : lock_keys)
      script += "; SELECT pg_advisory_xact_lock(hashtextextended(" + c_.Literal(key) + ", 0))";
    c_.ExecScript(script);
  } catch (const PgError&) {
    // BEGIN may have run: no destructor runs for a throwing constructor, so end it here, or the
    // connection would go back to the pool inside an aborted transaction.
    Rollback();
    throw;
  }
}

}  // namespace agentgate::pg
