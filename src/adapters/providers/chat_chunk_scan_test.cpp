#include "adapters/providers/chat_chunk_scan.hpp"

#include <gtest/gtest.h>

namespace agentgate::wire {
namespace {

TEST(ChatChunkScan, ReadsTheTextFieldsOfAChunk) {
  ChatChunkScanner scanner;
  const auto text = scanner.Scan(
      R"({"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o",)"
      R"("system_fingerprint":"fp_1","choices":[{"index":0,"delta":{"role":"assistant",)"
      R"("content":"Hel\"lo\n\u00e9"},"logprobs":null,"finish_reason":null}],"usage":null})");
  ASSERT_TRUE(text);
  EXPECT_EQ(text->model, "gpt-4o");
  EXPECT_EQ(text->content, "Hel\"lo\n\xC3\xA9");
  EXPECT_EQ(text->finish_reason, "");
}

TEST(ChatChunkScan, TakesOnlyTheFirstChoiceAndOnlyItsDeltaContent) {
  ChatChunkScanner scanner;
  const auto text =
      scanner.Scan(R"({"choices":[{"logprobs":{"content":[{"token":"no","logprob":-1}]},)"
                   R"("delta":{"content":"yes","refusal":null},"finish_reason":"stop"},)"
                   R"({"delta":{"content":"second"},"finish_reason":"length"}],"content":"top"})");
  ASSERT_TRUE(text);
  EXPECT_EQ(text->content, "yes");
  EXPECT_EQ(text->finish_reason, "stop");
  EXPECT_EQ(text->model, "");
}

TEST(ChatChunkScan, ANullOrAbsentFieldIsEmpty) {
  ChatChunkScanner scanner;
  auto text = scanner.Scan(R"({"choices":[{"delta":{"content":null},"finish_reason":null}]})");
  ASSERT_TRUE(text);
  EXPECT_EQ(text->content, "");
  text = scanner.Scan(R"({"choices":[]})");
  ASSERT_TRUE(text);
  EXPECT_EQ(text->content, "");
  text = scanner.Scan(R"({"model":7,"choices":[{"delta":{"content":12}}]})");
  ASSERT_TRUE(text);
  EXPECT_EQ(text->model, "");
  EXPECT_EQ(text->content, "");
}

TEST(ChatChunkScan, LeavesAnythingBeyondTextToTheWholeReader) {
  ChatChunkScanner scanner;
  for (const char* more :
       {R"({"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2}})",
        R"({"error":{"message":"overloaded","type":"server_error"}})",
        R"({"choices":[{"delta":{"tool_calls":[{"index":0,"id":"call_1"}]}}]})",
        R"([{"choices":[]}])", R"("text")", R"(12)", R"({"choices":[)", R"({"a":1} x)", ""}) {
    EXPECT_FALSE(scanner.Scan(more)) << more;
  }
  // A null usage (every chunk's, with include_usage) or error is no more than text.
  EXPECT_TRUE(
      scanner.Scan(R"({"usage":null,"error":null,"choices":[{"delta":{"tool_calls":null}}]})"));
}

TEST(ChatChunkScan, AScanForgetsThePreviousChunk) {
  ChatChunkScanner scanner;
  ASSERT_TRUE(
      scanner.Scan(R"({"model":"m","choices":[{"delta":{"content":"one"},"finish_reason":"x"}]})"));
  const auto text = scanner.Scan(R"({"choices":[{"delta":{"content":"two"}}]})");
  ASSERT_TRUE(text);
  EXPECT_EQ(text->content, "two");
  EXPECT_EQ(text->model, "");
  EXPECT_EQ(text->finish_reason, "");
}

TEST(ChatChunkScan, ADeeplyNestedChunkIsLeftToTheWholeReader) {
  ChatChunkScanner scanner;
  std::string deep = R"({"choices":[{"delta":{"content":"a"}}],"x":)";
  for (int i = 0; i < 40; ++i) deep += "[";
  for (int i = 0; i < 40; ++i) deep += "]";
  deep += "}";
  EXPECT_FALSE(scanner.Scan(deep));
}

}  // namespace
}  // namespace agentgate::wire
