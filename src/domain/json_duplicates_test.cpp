#include "domain/json_duplicates.hpp"

#include <gtest/gtest.h>

namespace agentgate {

TEST(JsonDuplicates, NamesTheFirstKeyThatAppearsTwiceInOneObject) {
  EXPECT_EQ(FirstDuplicateKey(R"({"message":"a","message":"b"})"), "message");
  EXPECT_EQ(FirstDuplicateKey(R"({"config":{"tools":[{"name":"a"},{"name":"b","name":"c"}]}})"),
            "config.tools[1].name");
  EXPECT_EQ(FirstDuplicateKey(R"([1, {"a":1}, [], {"b":1,"b":2}])"), "[3].b");
  // Escapes are decoded before comparing: these are the same key.
  EXPECT_EQ(FirstDuplicateKey(R"({"m\u0065ssage":"a","message":"b"})"), "message");
}

TEST(JsonDuplicates, EqualKeysInDifferentObjectsAreFine) {
  EXPECT_FALSE(FirstDuplicateKey(R"({"a":{"x":1},"b":{"x":2},"c":[{"x":1},{"x":2}]})"));
  EXPECT_FALSE(FirstDuplicateKey(R"({"a":1,"A":2})"));
  EXPECT_FALSE(FirstDuplicateKey("not json"));
  EXPECT_FALSE(FirstDuplicateKey(""));
}

}  // namespace agentgate
