#pragma once
// Names the calling thread as `top -H`, `ps -L` and `perf` show it (Linux keeps 15 characters),
// so an operator can tell the I/O threads from the committer, the checkpointer and the log writer.

#include <string_view>

namespace agentgate {

void NameThisThread(std::string_view name);

}  // namespace agentgate
