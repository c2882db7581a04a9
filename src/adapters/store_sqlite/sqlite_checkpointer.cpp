#include "adapters/store_sqlite/sqlite_checkpointer.hpp"

#include "adapters/store_sqlite/sqlite_wal_vfs.hpp"
#include "observability/log.hpp"
#include "observability/thread_name.hpp"

#include <sqlite3.h>

#include <utility>

namespace agentgate::sqlite {
namespace {

// Passes made beside the writers before the rest is copied with them held back. A pass copies the
// frames there when it began (those no reader still needs): the first the bulk, each later one
// what was appended during the one before. A writer that outruns them all (a bulk import) waits
// once for the remainder, as it would for SQLite's own checkpoint.
constexpr int kPassesBesideWriters = 3;

void Warn(const char* error) {
  log::Warn("sqlite_checkpoint_failed", {{"error", std::string_view(error)}});
}

}  // namespace

// The checkpointer's own connection; it never writes, so it needs no WAL hook.
class CheckpointConnection {
 public:
  ~CheckpointConnection() { sqlite3_close(db_); }

  bool Open(const std::string& path) {
    if (db_) return true;
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
                        FrameJoiningVfs()) != SQLITE_OK) {
      Warn(db_ ? sqlite3_errmsg(db_) : "cannot open the database file");
      sqlite3_close(db_);
      db_ = nullptr;
      return false;
    }
    // NORMAL like the writers: a checkpoint still syncs the WAL before copying it and the file
    // after, so the file survives a power cut.
    sqlite3_exec(db_, "PRAGMA synchronous=NORMAL", nullptr, nullptr, nullptr);
    return true;
  }

  // Copies what no reader still needs; the frames left in the WAL, or -1 on failure.
  int Pass() {
    int log = 0;
    int copied = 0;
    const int rc =
        sqlite3_wal_checkpoint_v2(db_, nullptr, SQLITE_CHECKPOINT_PASSIVE, &log, &copied);
    if (rc == SQLITE_BUSY) return -1;  // another process is checkpointing this file
    if (rc != SQLITE_OK) {
      Warn(sqlite3_errmsg(db_));
      return -1;
    }
    return log - copied;
  }

 private:
  sqlite3* db_ = nullptr;
};

Checkpointer::Checkpointer(std::string path, int threshold_pages, WriterGate& writers)
    : path_(std::move(path)),
      threshold_pages_(threshold_pages),
      writers_(writers),
      thread_([this](std::stop_token stop) { Run(stop); }) {}

Checkpointer::~Checkpointer() = default;

void Checkpointer::Committed(int wal_pages) {
  if (wal_pages < threshold_pages_) return;
  {
    std::lock_guard lock(mutex_);
    requested_ = true;
  }
  wanted_.notify_one();
}

std::uint64_t Checkpointer::Completed() const {
  return completed_;
}

void Checkpointer::Run(std::stop_token stop) {
  NameThisThread("ag-checkpoint");
  CheckpointConnection db;  // opened on first use: the file may not exist yet
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      if (!wanted_.wait(lock, stop, [&] { return requested_; })) return;
    }
    if (db.Open(path_) && CopyWhole(db)) ++completed_;
    // Commits during the passes asked about the WAL just copied.
    std::lock_guard lock(mutex_);
    requested_ = false;
  }
}

bool Checkpointer::CopyWhole(CheckpointConnection& db) {
  // Beside the writers: the bulk (copying the WAL's pages and syncing both files), then what they
  // appended during the pass before, less each time.
  for (int pass = 0; pass < kPassesBesideWriters; ++pass) {
    if (db.Pass() < 0) return false;
  }
  // The WAL starts over only if it is copied whole before the next write begins. So the last few
  // pages with this process's writers held back, for a short copy and two short fsyncs.
  const auto held_back = writers_.EnterAhead();
  return db.Pass() == 0;
}

}  // namespace agentgate::sqlite
