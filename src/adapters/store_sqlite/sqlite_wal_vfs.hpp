#pragma once
// The VFS every connection of the store opens its files with: SQLite's own unix VFS, except that
// a commit's WAL frames go to the file in one write instead of two per frame.
//
// SQLite appends a commit to the WAL frame by frame: each frame's 24-byte header, then its page,
// two pwrite calls per page the commit changed, each costing about as much as the bytes it
// carries. This VFS holds the appended run back and writes it in one call when the commit frame's
// page arrives (a frame header says whether its frame ends a commit). That is SQLite's last write
// before it publishes the commit in the WAL index, so a failed write still fails the commit, and
// no reader is ever told of a frame that is not in the file. Anything else done to the file (a
// read, a sync, a size, a truncation, a write elsewhere, closing) first writes a held run out, so
// what the file holds when anyone can look is what SQLite wrote. The files stay SQLite's format.

#include <cstdint>

namespace agentgate::sqlite {

// Registers the VFS once per process and returns its name for sqlite3_open_v2. The first call
// also sets SQLite up, before its first use: no memory statistics (a mutex per allocation).
const char* FrameJoiningVfs();

// Writes issued to WAL files since the process started (for tests and profiles).
std::uint64_t WalWrites();
// Times a run of frames was still held when SQLite published a commit (never, by design).
std::uint64_t WalRunsHeldAtPublish();

}  // namespace agentgate::sqlite
