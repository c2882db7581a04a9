#include "adapters/store_sqlite/sqlite_wal_vfs.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <utility>

namespace agentgate::sqlite {
namespace {

constexpr int kFrameHeaderBytes = 24;  // wal.c's WAL_FRAME_HDRSIZE
// A longer run (a big transaction) goes out in parts. The unix VFS writes at most 128 KiB - 1 a
// call (it masks the length), and a run that reaches 128 KiB would fail as SQLITE_FULL.
constexpr int kMostHeldBytes = 64 * 1024;

std::atomic<std::uint64_t> wal_writes{0};
std::atomic<std::uint64_t> held_at_publish{0};
sqlite3_vfs* real_vfs = nullptr;  // set once, before the first open

// Ours first, then the real VFS's file object, which SQLite sized for us (szOsFile). SQLite
// places file objects on 8-byte boundaries; this struct's size keeps the one after it there.
struct File {
  sqlite3_file base;
  bool wal;
  bool commit_frame_next;     // the header just held is a commit frame's: its page ends the run
  bool read_last;             // the last call on this file read it (see Write)
  sqlite3_int64 appended_to;  // the end of the runs written since the log began (see Write)
  int held_bytes;             // the run held back: written to the file at held_at, in order
  int held_capacity;
  sqlite3_int64 held_at;
  unsigned char* held;
};
static_assert(alignof(File) <= 8 && sizeof(File) % 8 == 0);

// The WAL file whose run this thread holds. SQLite appends a transaction's frames, publishes
// them in the WAL index and releases its write lock all in one call on one thread (and the store
// never moves a write transaction between threads), so the database file's index and lock calls
// on this thread are where a run still held must go out at the latest.
thread_local File* held_here = nullptr;

sqlite3_file* Real(sqlite3_file* f) {
  return reinterpret_cast<sqlite3_file*>(reinterpret_cast<unsigned char*>(f) + sizeof(File));
}
File* Of(sqlite3_file* f) {
  return reinterpret_cast<File*>(f);
}
const sqlite3_io_methods& RealMethods(sqlite3_file* f) {
  return *Real(f)->pMethods;
}

int WriteThrough(sqlite3_file* f, const void* data, int amount, sqlite3_int64 offset) {
  if (Of(f)->wal) wal_writes.fetch_add(1, std::memory_order_relaxed);
  return RealMethods(f).xWrite(Real(f), data, amount, offset);
}

// Writes the held run out, before anything else touches the file.
int Release(sqlite3_file* f) {
  File* file = Of(f);
  if (held_here == file) held_here = nullptr;
  if (file->held_bytes == 0) return SQLITE_OK;
  const int bytes = file->held_bytes;
  file->held_bytes = 0;
  file->commit_frame_next = false;
  file->appended_to = std::max(file->appended_to, file->held_at + bytes);
  return WriteThrough(f, file->held, bytes, file->held_at);
}

// Before any other call on `f`: its own run, and the run this thread holds in another file.
int ReleaseBefore(sqlite3_file* f) {
  if (const int rc = Release(f); rc != SQLITE_OK) return rc;
  return held_here == nullptr ? SQLITE_OK : Release(&held_here->base);
}

bool Hold(File* file, const void* data, int amount) {
  const int total = file->held_bytes + amount;
  if (total > file->held_capacity) {
    const int capacity = std::max(total, 2 * file->held_capacity);
    auto* grown = static_cast<unsigned char*>(sqlite3_realloc(file->held, capacity));
    if (grown == nullptr) return false;
    file->held = grown;
    file->held_capacity = capacity;
  }
  std::memcpy(file->held + file->held_bytes, data, static_cast<std::size_t>(amount));
  file->held_bytes = total;
  return true;
}

// A frame header's bytes 4-7 hold the database's size after the commit it ends, or 0.
bool IsCommitFrameHeader(const void* data) {
  const auto* header = static_cast<const unsigned char*>(data);
  return (header[4] | header[5] | header[6] | header[7]) != 0;
}

int Write(sqlite3_file* f, const void* data, int amount, sqlite3_int64 offset) {
  File* file = Of(f);
  const bool after_read = std::exchange(file->read_last, false);
  const bool continues = file->held_bytes > 0 && offset == file->held_at + file->held_bytes &&
                         file->held_bytes + amount <= kMostHeldBytes;
  if (!continues) {
    if (const int rc = ReleaseBefore(f); rc != SQLITE_OK) return rc;
  }
  // A write into the log already written, right after a read, is SQLite redoing the checksums of
  // frames this transaction rewrote (each frame read, then its header written), the last of them
  // the commit frame's header with no page after it: it goes out at once.
  if (file->wal && offset == 0) file->appended_to = 0;  // a new log begins with its header
  if (!file->wal || (after_read && offset < file->appended_to))
    return WriteThrough(f, data, amount, offset);
  if (!continues) {
    file->held_at = offset;
    held_here = file;
  }
  if (!Hold(file, data, amount)) {
    const int rc = Release(f);
    return rc != SQLITE_OK ? rc : WriteThrough(f, data, amount, offset);
  }
  // The commit frame's page is the transaction's last write before SQLite publishes it in the
  // WAL index: the run goes out now, where a failure still fails the commit.
  const bool ends_commit = file->commit_frame_next && amount != kFrameHeaderBytes;
  file->commit_frame_next = amount == kFrameHeaderBytes && IsCommitFrameHeader(data);
  if (ends_commit) return Release(f);
  return SQLITE_OK;
}

int Close(sqlite3_file* f) {
  const int released = Release(f);
  sqlite3_free(Of(f)->held);
  Of(f)->held = nullptr;
  const int rc = RealMethods(f).xClose(Real(f));
  return released != SQLITE_OK ? released : rc;
}

// Every other method passes through, after a held run is out.
int Read(sqlite3_file* f, void* data, int amount, sqlite3_int64 offset) {
  if (const int rc = ReleaseBefore(f); rc != SQLITE_OK) return rc;
  Of(f)->read_last = true;
  return RealMethods(f).xRead(Real(f), data, amount, offset);
}
int Truncate(sqlite3_file* f, sqlite3_int64 size) {
  if (const int rc = ReleaseBefore(f); rc != SQLITE_OK) return rc;
  return RealMethods(f).xTruncate(Real(f), size);
}
int Sync(sqlite3_file* f, int flags) {
  if (const int rc = ReleaseBefore(f); rc != SQLITE_OK) return rc;
  return RealMethods(f).xSync(Real(f), flags);
}
int FileSize(sqlite3_file* f, sqlite3_int64* size) {
  if (const int rc = ReleaseBefore(f); rc != SQLITE_OK) return rc;
  return RealMethods(f).xFileSize(Real(f), size);
}
int Lock(sqlite3_file* f, int level) {
  if (const int rc = ReleaseBefore(f); rc != SQLITE_OK) return rc;
  return RealMethods(f).xLock(Real(f), level);
}
int Unlock(sqlite3_file* f, int level) {
  if (const int rc = ReleaseBefore(f); rc != SQLITE_OK) return rc;
  return RealMethods(f).xUnlock(Real(f), level);
}
int CheckReservedLock(sqlite3_file* f, int* out) {
  return RealMethods(f).xCheckReservedLock(Real(f), out);
}
int FileControl(sqlite3_file* f, int op, void* arg) {
  if (const int rc = ReleaseBefore(f); rc != SQLITE_OK) return rc;
  return RealMethods(f).xFileControl(Real(f), op, arg);
}
int SectorSize(sqlite3_file* f) {
  return RealMethods(f).xSectorSize(Real(f));
}
int DeviceCharacteristics(sqlite3_file* f) {
  return RealMethods(f).xDeviceCharacteristics(Real(f));
}
int ShmMap(sqlite3_file* f, int page, int page_size, int extend, void volatile** out) {
  if (const int rc = ReleaseBefore(f); rc != SQLITE_OK) return rc;
  return RealMethods(f).xShmMap(Real(f), page, page_size, extend, out);
}
int ShmLock(sqlite3_file* f, int offset, int n, int flags) {
  if (const int rc = ReleaseBefore(f); rc != SQLITE_OK) return rc;
  return RealMethods(f).xShmLock(Real(f), offset, n, flags);
}
void ShmBarrier(sqlite3_file* f) {
  // Nothing is held here when SQLite publishes a commit (its last write released the run, where
  // a failed write fails the commit); this is the last point at which a run could still go out
  // before readers are told of it.
  if (held_here != nullptr && held_here->held_bytes > 0)
    held_at_publish.fetch_add(1, std::memory_order_relaxed);
  ReleaseBefore(f);
  RealMethods(f).xShmBarrier(Real(f));
}
int ShmUnmap(sqlite3_file* f, int delete_flag) {
  if (const int rc = ReleaseBefore(f); rc != SQLITE_OK) return rc;
  return RealMethods(f).xShmUnmap(Real(f), delete_flag);
}
int Fetch(sqlite3_file* f, sqlite3_int64 offset, int amount, void** out) {
  if (const int rc = ReleaseBefore(f); rc != SQLITE_OK) return rc;
  return RealMethods(f).xFetch(Real(f), offset, amount, out);
}
int Unfetch(sqlite3_file* f, sqlite3_int64 offset, void* p) {
  return RealMethods(f).xUnfetch(Real(f), offset, p);
}

// Version 3, like the unix VFS's own methods (checked when the VFS is registered).
const sqlite3_io_methods kMethods = {3,
                                     Close,
                                     Read,
                                     Write,
                                     Truncate,
                                     Sync,
                                     FileSize,
                                     Lock,
                                     Unlock,
                                     CheckReservedLock,
                                     FileControl,
                                     SectorSize,
                                     DeviceCharacteristics,
                                     ShmMap,
                                     ShmLock,
                                     ShmBarrier,
                                     ShmUnmap,
                                     Fetch,
                                     Unfetch};

int Open(sqlite3_vfs*, sqlite3_filename name, sqlite3_file* f, int flags, int* out_flags) {
  File* file = Of(f);
  file->base.pMethods = nullptr;
  file->wal = (flags & SQLITE_OPEN_WAL) != 0;
  file->commit_frame_next = false;
  file->read_last = false;
  file->appended_to = 0;
  file->held_bytes = 0;
  file->held_capacity = 0;
  file->held_at = 0;
  file->held = nullptr;
  sqlite3_file* real = Real(f);
  real->pMethods = nullptr;
  const int rc = real_vfs->xOpen(real_vfs, name, real, flags, out_flags);
  if (rc != SQLITE_OK) {
    if (real->pMethods != nullptr) real->pMethods->xClose(real);
    return rc;
  }
  if (real->pMethods->iVersion < kMethods.iVersion) {
    real->pMethods->xClose(real);
    return SQLITE_CANTOPEN;
  }
  file->base.pMethods = &kMethods;
  return SQLITE_OK;
}

sqlite3_vfs vfs;

}  // namespace

const char* FrameJoiningVfs() {
  static std::once_flag registered;
  std::call_once(registered, [] {
    // Before the library's first use (which this is: every connection opens through here): it
    // keeps no memory statistics. Counting took a process-wide mutex on each of its allocations,
    // some 70 a turn shared by every thread, and nothing reads the counts. Refused once SQLite
    // is in use already (another user of it in the process): it then keeps counting, as before.
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    real_vfs = sqlite3_vfs_find(nullptr);
    if (real_vfs == nullptr) throw std::runtime_error("sqlite has no default VFS");
    vfs = *real_vfs;  // its other methods take any vfs whose pAppData is the real one's
    vfs.szOsFile = static_cast<int>(sizeof(File)) + real_vfs->szOsFile;
    vfs.zName = "agentgate-joined-frames";
    vfs.pNext = nullptr;
    vfs.xOpen = Open;
    if (sqlite3_vfs_register(&vfs, 0) != SQLITE_OK)
      throw std::runtime_error("sqlite did not register the store's VFS");
  });
  return vfs.zName;
}

std::uint64_t WalRunsHeldAtPublish() {
  return held_at_publish.load(std::memory_order_relaxed);
}

std::uint64_t WalWrites() {
  return wal_writes.load(std::memory_order_relaxed);
}

}  // namespace agentgate::sqlite
