#include "observability/thread_name.hpp"

#include <pthread.h>

#include <string>

namespace agentgate {

void NameThisThread(std::string_view name) {
  const std::string kept(name.substr(0, 15));  // the kernel refuses longer names
  pthread_setname_np(pthread_self(), kept.c_str());
}

}  // namespace agentgate
