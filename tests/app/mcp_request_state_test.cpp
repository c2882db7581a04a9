// The sealed requestState of /mcp's input_required results (app/mcp/request_state): it opens only
// for the caller and tool it was given to, until it expires, and nothing else opens as one.
#include "app/mcp/request_state.hpp"
#include "support/manual_clock.hpp"

#include <gtest/gtest.h>

namespace agentgate::testing {
namespace {

using namespace std::chrono_literals;

crypto::MasterKey Key(std::uint8_t fill) {
  crypto::MasterKey key;
  key.fill(fill);
  return key;
}

class McpRequestStateTest : public ::testing::Test {
 protected:
  McpRequestState State() {
    return McpRequestState{
        "run_1",
        "support",
        caller_,
        0,
        {{"call_a", mcp::FormShape::kApproval}, {"call_b", mcp::FormShape::kWholeAnswer}}};
  }

  ManualClock clock_{1765000000000};
  const Caller caller_{"acme", "prod", "tok_1"};
  McpRequestStates states_{Key(7), clock_, 600s};
};

TEST_F(McpRequestStateTest, OpensForItsCallerAndToolWithWhatItNamed) {
  const std::string sealed = states_.Seal(State());
  EXPECT_EQ(sealed.find("run_1"), std::string::npos);  // sealed, not only encoded
  auto opened = states_.Open(sealed, caller_);
  ASSERT_TRUE(opened) << opened.error().message;
  EXPECT_EQ(opened->run_id, "run_1");
  EXPECT_EQ(opened->agent_id, "support");  // the tool it was given for, the caller's to check
  EXPECT_EQ(opened->expires_at_ms, clock_.NowMs() + 600000);
  ASSERT_EQ(opened->needs.size(), 2u);
  EXPECT_EQ(opened->needs[1], (mcp::ElicitedNeed{"call_b", mcp::FormShape::kWholeAnswer}));
  // Another server with the same master key opens it too.
  McpRequestStates other{Key(7), clock_, 600s};
  EXPECT_TRUE(other.Open(sealed, caller_));
}

TEST_F(McpRequestStateTest, NoOtherCallerKeyOrTimeOpensIt) {
  const std::string sealed = states_.Seal(State());
  const auto refused = [&](const Result<McpRequestState>& r) {
    return !r && r.error().field() == std::optional<std::string_view>("params.requestState");
  };
  EXPECT_TRUE(refused(states_.Open(sealed, Caller{"acme", "prod", "tok_2"})));
  EXPECT_TRUE(refused(states_.Open(sealed, Caller{"acme", "staging", "tok_1"})));
  EXPECT_TRUE(refused(McpRequestStates(Key(8), clock_, 600s).Open(sealed, caller_)));
  std::string altered = sealed;
  altered[altered.size() / 2] = altered[altered.size() / 2] == 'A' ? 'B' : 'A';
  EXPECT_TRUE(refused(states_.Open(altered, caller_)));
  EXPECT_TRUE(refused(states_.Open("not base64 !", caller_)));
  clock_.Advance(601s);
  EXPECT_TRUE(refused(states_.Open(sealed, caller_)));
  // Without a master key nothing is sealed, and nothing opens.
  McpRequestStates keyless{std::nullopt, clock_, 600s};
  EXPECT_FALSE(keyless.enabled());
  EXPECT_TRUE(refused(keyless.Open(sealed, caller_)));
}

}  // namespace
}  // namespace agentgate::testing
