#include "adapters/store_sqlite/sqlite_db.hpp"

#include "adapters/store_common/statement_count.hpp"
#include "adapters/store_sqlite/sqlite_checkpointer.hpp"
#include "adapters/store_sqlite/sqlite_wal_vfs.hpp"

#include <sqlite3.h>

#include <chrono>
#include <thread>

namespace agentgate::sqlite {
namespace {

[[noreturn]] void Throw(sqlite3* db, int code, std::string_view what) {
  throw SqliteError(std::string(what) + ": " + (db ? sqlite3_errmsg(db) : sqlite3_errstr(code)),
                    code);
}

}  // namespace

bool SqliteError::IsConstraint() const {
  return (code & 0xff) == SQLITE_CONSTRAINT;
}

Statement::~Statement() {
  if (in_use_ == nullptr) {
    sqlite3_finalize(stmt_);
    return;
  }
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
  *in_use_ = false;
}

Statement& Statement::BindAt(int index, std::string_view text) {
  // Cleared when the statement is given back (~Statement), so SQLite never reads it later.
  const int rc =
      sqlite3_bind_text(stmt_, index, text.data(), static_cast<int>(text.size()), SQLITE_STATIC);
  if (rc != SQLITE_OK) Throw(db_, rc, "bind");
  return *this;
}

Statement& Statement::BindAt(int index, std::string&& text) {
  const int rc =
      sqlite3_bind_text(stmt_, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  if (rc != SQLITE_OK) Throw(db_, rc, "bind");
  return *this;
}

Statement& Statement::BindAt(int index, BlobParam blob) {
  const int rc = sqlite3_bind_blob(stmt_, index, blob.bytes.data(),
                                   static_cast<int>(blob.bytes.size()), SQLITE_TRANSIENT);
  if (rc != SQLITE_OK) Throw(db_, rc, "bind");
  return *this;
}

Statement& Statement::BindAt(int index, std::int64_t value) {
  const int rc = sqlite3_bind_int64(stmt_, index, value);
  if (rc != SQLITE_OK) Throw(db_, rc, "bind");
  return *this;
}

Statement& Statement::BindAt(int index, double value) {
  const int rc = sqlite3_bind_double(stmt_, index, value);
  if (rc != SQLITE_OK) Throw(db_, rc, "bind");
  return *this;
}

Statement& Statement::BindAt(int index, std::optional<double> value) {
  return value ? BindAt(index, *value) : BindAt(index, std::nullopt);
}

Statement& Statement::BindAt(int index, std::nullopt_t) {
  const int rc = sqlite3_bind_null(stmt_, index);
  if (rc != SQLITE_OK) Throw(db_, rc, "bind");
  return *this;
}

bool Statement::Step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  Throw(db_, rc, "step");
}

void Statement::Run() {
  while (Step()) {
  }
}

std::string Statement::Text(int column) const {
  const auto* p = sqlite3_column_text(stmt_, column);
  return p ? std::string(reinterpret_cast<const char*>(p), sqlite3_column_bytes(stmt_, column))
           : std::string();
}

std::string Statement::Bytes(int column) const {
  const auto* p = sqlite3_column_blob(stmt_, column);
  return p ? std::string(static_cast<const char*>(p), sqlite3_column_bytes(stmt_, column))
           : std::string();
}

std::int64_t Statement::Int(int column) const {
  return sqlite3_column_int64(stmt_, column);
}
double Statement::Double(int column) const {
  return sqlite3_column_double(stmt_, column);
}
bool Statement::IsNull(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

struct SharedFile {
  SharedFile(const std::string& path, int checkpoint_pages)
      : checkpointer(path, checkpoint_pages, writers) {}
  WriterGate writers;
  Checkpointer checkpointer;
};

namespace {

// What the connections to one file in this process share; forgotten when the last of them closes.
std::shared_ptr<SharedFile> FileOf(const std::string& path, int checkpoint_pages) {
  static std::mutex registry_mutex;
  static std::map<std::string, std::weak_ptr<SharedFile>> registry;
  std::lock_guard lock(registry_mutex);
  std::erase_if(registry, [](const auto& kv) { return kv.second.expired(); });
  auto& slot = registry[path];
  auto file = slot.lock();
  if (!file) {
    file = std::make_shared<SharedFile>(path, checkpoint_pages);
    slot = file;
  }
  return file;
}

int NoteCommit(void* checkpointer, sqlite3*, const char*, int wal_pages) {
  static_cast<Checkpointer*>(checkpointer)->Committed(wal_pages);
  return SQLITE_OK;
}

}  // namespace

Connection::Connection(const std::string& path, int checkpoint_pages)
    : file_(FileOf(path, checkpoint_pages)) {
  const int rc = sqlite3_open_v2(path.c_str(), &db_,
                                 SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                                 FrameJoiningVfs());
  if (rc != SQLITE_OK) {
    std::string message = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close(db_);
    throw SqliteError("open " + path + ": " + message, rc);
  }
  // Several servers may share one file: wait for the writer instead of failing.
  constexpr int kBusyTimeoutMs = 10000;
  sqlite3_busy_timeout(db_, kBusyTimeoutMs);
  // A new file turns to WAL under its exclusive lock, and SQLite answers "locked" at once, without
  // the busy handler, while another connection is opening it too (servers or stores starting
  // together): that one statement is tried again for as long as the busy timeout.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
  for (;;) {
    try {
      Exec("PRAGMA journal_mode=WAL");
      break;
    } catch (const SqliteError& e) {
      if ((e.code & 0xff) != SQLITE_BUSY || std::chrono::steady_clock::now() > give_up) throw;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  // temp_store=MEMORY keeps the statement journal of each turn's savepoint in a group commit in
  // memory: past 64 KiB SQLite spills it to a temporary file, two pwrites per page of it (a batch
  // holds it only until its commit, so it is bounded by the batch's size).
  Exec("PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON; PRAGMA temp_store=MEMORY;");
  // In place of SQLite's automatic checkpoint, which runs inside the commit past its threshold.
  sqlite3_wal_hook(db_, &NoteCommit, &file_->checkpointer);
}

WriterGate& Connection::writers() {
  return file_->writers;
}

Connection::~Connection() {
  for (auto& [sql, cached] : statements_) sqlite3_finalize(cached.stmt);
  sqlite3_close(db_);
}

Statement Connection::Prepare(std::string_view sql) {
  store_statements::Count();
  auto prepare = [&] {
    sqlite3_stmt* stmt = nullptr;
    const int rc = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()),
                                      SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
    if (rc != SQLITE_OK) Throw(db_, rc, "prepare");
    return stmt;
  };
  auto it = statements_.find(sql);
  if (it == statements_.end()) it = statements_.emplace(std::string(sql), Cached{prepare()}).first;
  Cached& cached = it->second;
  // The same SQL still open further up the stack gets a statement of its own.
  if (cached.in_use) return Statement(db_, prepare(), nullptr);
  cached.in_use = true;
  return Statement(db_, cached.stmt, &cached.in_use);
}

void Connection::Exec(std::string_view sql) {
  store_statements::Count();
  char* err = nullptr;
  const int rc = sqlite3_exec(db_, std::string(sql).c_str(), nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    std::string message = err ? err : sqlite3_errstr(rc);
    sqlite3_free(err);
    throw SqliteError("exec: " + message, rc);
  }
}

std::int64_t Connection::Changes() const {
  return sqlite3_changes64(db_);
}

WriteTransaction::WriteTransaction(Connection& c) : connection_(c), writing_(c.writers().Enter()) {
  connection_.Prepare("BEGIN IMMEDIATE").Run();
}

WriteTransaction::~WriteTransaction() {
  if (!done_) {
    try {
      connection_.Exec("ROLLBACK");
    } catch (const SqliteError&) {  // the connection is closed or already rolled back
    }
  }
}

void WriteTransaction::Commit() {
  connection_.Prepare("COMMIT").Run();
  done_ = true;
}

}  // namespace agentgate::sqlite
