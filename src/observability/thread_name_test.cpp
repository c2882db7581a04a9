#include "observability/thread_name.hpp"

#include <gtest/gtest.h>

#include <pthread.h>

#include <string>
#include <thread>

namespace agentgate {

std::string NameOf(std::string_view given) {
  std::string seen;
  std::thread named([&] {
    NameThisThread(given);
    char buffer[32] = {};
    pthread_getname_np(pthread_self(), buffer, sizeof buffer);
    seen = buffer;
  });
  named.join();
  return seen;
}

TEST(ThreadName, TheThreadCarriesItsName) {
  EXPECT_EQ(NameOf("ag-commit"), "ag-commit");
}

TEST(ThreadName, ALongNameIsCutToWhatLinuxKeeps) {
  EXPECT_EQ(NameOf("agentgate-checkpointer-1"), "agentgate-check");
}

}  // namespace agentgate
