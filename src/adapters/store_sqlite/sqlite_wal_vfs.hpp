#pragma once
// The VFS every connection of the store opens its files with: SQLite's own unix VFS, except that
// each WAL frame goes to the file in one write instead of two.
//
// SQLite writes a WAL frame as its 24-byte header, then its page, right after it: two pwrite
// calls per page a commit changes, and the first costs nearly as much as the second. This VFS
// holds a frame header back until the write that follows it and, when that is the frame's page,
// writes both at once. Anything else done to the file (a read, a sync, a size, a truncation, a
// write elsewhere, closing) first writes a held header out, so what the file holds when anyone
// can look is what SQLite wrote. A frame is not part of the log until its commit updates the WAL
// index, after its page is written; a header held back is therefore never one a reader expects.

#include <cstdint>

namespace agentgate::sqlite {

// Registers the VFS once per process and returns its name for sqlite3_open_v2.
const char* FrameJoiningVfs();

// Frames written in one call since the process started (for tests and profiles).
std::uint64_t WalFramesJoined();

}  // namespace agentgate::sqlite
