#include "adapters/store_sqlite/sqlite_wal_vfs.hpp"

#include <sqlite3.h>

#include <atomic>
#include <cstddef>
#include <cstring>
#include <mutex>
#include <stdexcept>

namespace agentgate::sqlite {
namespace {

constexpr int kFrameHeaderBytes = 24;  // wal.c's WAL_FRAME_HDRSIZE

std::atomic<std::uint64_t> frames_joined{0};
sqlite3_vfs* real_vfs = nullptr;  // set once, before the first open

// Ours first, then the real VFS's file object, which SQLite sized for us (szOsFile). SQLite
// places file objects on 8-byte boundaries; this struct's size keeps the one after it there.
struct File {
  sqlite3_file base;
  bool wal;
  sqlite3_int64 held_at;  // offset of a frame header held back, or -1
  unsigned char* joined;  // the held header, followed by room for its page
  int joined_capacity;
};
static_assert(alignof(File) <= 8 && sizeof(File) % 8 == 0);

sqlite3_file* Real(sqlite3_file* f) {
  return reinterpret_cast<sqlite3_file*>(reinterpret_cast<unsigned char*>(f) + sizeof(File));
}
File* Of(sqlite3_file* f) {
  return reinterpret_cast<File*>(f);
}
const sqlite3_io_methods& RealMethods(sqlite3_file* f) {
  return *Real(f)->pMethods;
}

// Writes a held-back header out on its own, before anything else touches the file.
int Release(sqlite3_file* f) {
  File* file = Of(f);
  if (file->held_at < 0) return SQLITE_OK;
  const sqlite3_int64 at = file->held_at;
  file->held_at = -1;
  return RealMethods(f).xWrite(Real(f), file->joined, kFrameHeaderBytes, at);
}

int Write(sqlite3_file* f, const void* data, int amount, sqlite3_int64 offset) {
  File* file = Of(f);
  if (!file->wal) return RealMethods(f).xWrite(Real(f), data, amount, offset);
  if (file->held_at >= 0 && offset == file->held_at + kFrameHeaderBytes) {
    const int total = kFrameHeaderBytes + amount;
    if (total > file->joined_capacity) {
      auto* grown = static_cast<unsigned char*>(sqlite3_realloc(file->joined, total));
      if (grown == nullptr) {
        const int rc = Release(f);
        return rc != SQLITE_OK ? rc : RealMethods(f).xWrite(Real(f), data, amount, offset);
      }
      file->joined = grown;
      file->joined_capacity = total;
    }
    std::memcpy(file->joined + kFrameHeaderBytes, data, static_cast<std::size_t>(amount));
    const sqlite3_int64 at = file->held_at;
    file->held_at = -1;
    frames_joined.fetch_add(1, std::memory_order_relaxed);
    return RealMethods(f).xWrite(Real(f), file->joined, total, at);
  }
  if (const int rc = Release(f); rc != SQLITE_OK) return rc;
  if (amount != kFrameHeaderBytes) return RealMethods(f).xWrite(Real(f), data, amount, offset);
  if (file->joined == nullptr) {
    file->joined = static_cast<unsigned char*>(sqlite3_malloc(kFrameHeaderBytes + 4096));
    if (file->joined == nullptr) return RealMethods(f).xWrite(Real(f), data, amount, offset);
    file->joined_capacity = kFrameHeaderBytes + 4096;
  }
  std::memcpy(file->joined, data, kFrameHeaderBytes);
  file->held_at = offset;
  return SQLITE_OK;
}

int Close(sqlite3_file* f) {
  const int released = Release(f);
  sqlite3_free(Of(f)->joined);
  Of(f)->joined = nullptr;
  const int rc = RealMethods(f).xClose(Real(f));
  return released != SQLITE_OK ? released : rc;
}

// Every other method passes through, after a held header is out.
int Read(sqlite3_file* f, void* data, int amount, sqlite3_int64 offset) {
  if (const int rc = Release(f); rc != SQLITE_OK) return rc;
  return RealMethods(f).xRead(Real(f), data, amount, offset);
}
int Truncate(sqlite3_file* f, sqlite3_int64 size) {
  if (const int rc = Release(f); rc != SQLITE_OK) return rc;
  return RealMethods(f).xTruncate(Real(f), size);
}
int Sync(sqlite3_file* f, int flags) {
  if (const int rc = Release(f); rc != SQLITE_OK) return rc;
  return RealMethods(f).xSync(Real(f), flags);
}
int FileSize(sqlite3_file* f, sqlite3_int64* size) {
  if (const int rc = Release(f); rc != SQLITE_OK) return rc;
  return RealMethods(f).xFileSize(Real(f), size);
}
int Lock(sqlite3_file* f, int level) {
  return RealMethods(f).xLock(Real(f), level);
}
int Unlock(sqlite3_file* f, int level) {
  if (const int rc = Release(f); rc != SQLITE_OK) return rc;
  return RealMethods(f).xUnlock(Real(f), level);
}
int CheckReservedLock(sqlite3_file* f, int* out) {
  return RealMethods(f).xCheckReservedLock(Real(f), out);
}
int FileControl(sqlite3_file* f, int op, void* arg) {
  if (const int rc = Release(f); rc != SQLITE_OK) return rc;
  return RealMethods(f).xFileControl(Real(f), op, arg);
}
int SectorSize(sqlite3_file* f) {
  return RealMethods(f).xSectorSize(Real(f));
}
int DeviceCharacteristics(sqlite3_file* f) {
  return RealMethods(f).xDeviceCharacteristics(Real(f));
}
int ShmMap(sqlite3_file* f, int page, int page_size, int extend, void volatile** out) {
  return RealMethods(f).xShmMap(Real(f), page, page_size, extend, out);
}
int ShmLock(sqlite3_file* f, int offset, int n, int flags) {
  return RealMethods(f).xShmLock(Real(f), offset, n, flags);
}
void ShmBarrier(sqlite3_file* f) {
  RealMethods(f).xShmBarrier(Real(f));
}
int ShmUnmap(sqlite3_file* f, int delete_flag) {
  return RealMethods(f).xShmUnmap(Real(f), delete_flag);
}
int Fetch(sqlite3_file* f, sqlite3_int64 offset, int amount, void** out) {
  if (const int rc = Release(f); rc != SQLITE_OK) return rc;
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
  file->held_at = -1;
  file->joined = nullptr;
  file->joined_capacity = 0;
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

std::uint64_t WalFramesJoined() {
  return frames_joined.load(std::memory_order_relaxed);
}

}  // namespace agentgate::sqlite
