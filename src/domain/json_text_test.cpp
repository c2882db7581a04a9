#include "domain/json_text.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <gtest/gtest.h>

#include <limits>

namespace agentgate::json_text {
namespace {

std::string Rewrite(const char* text) {
  return Write(boost::json::parse(text));
}

}  // namespace

TEST(JsonText, DoublesAreWrittenInPlainDecimal) {
  EXPECT_EQ(Write(boost::json::value(0.0)), "0");
  EXPECT_EQ(Write(boost::json::value(0.0123)), "0.0123");
  EXPECT_EQ(Write(boost::json::value(-2.5)), "-2.5");
  EXPECT_EQ(Write(boost::json::value(1234.0)), "1234");
  EXPECT_EQ(Rewrite(R"({"cost_usd":1.23E-2,"limit":5E1})"), R"({"cost_usd":0.0123,"limit":50})");
}

TEST(JsonText, DoublesReadBackToTheSameValue) {
  for (double d : {0.1, 1.0 / 3.0, 2.2e-7, 6.02e23, 0.15 * 20 / 1e6}) {
    const std::string text = Write(boost::json::value(d));
    EXPECT_EQ(boost::json::parse(text).as_double(), d) << text;
  }
}

TEST(JsonText, NonFiniteDoublesBecomeNull) {
  EXPECT_EQ(Write(boost::json::value(std::numeric_limits<double>::infinity())), "null");
  EXPECT_EQ(Write(boost::json::value(std::numeric_limits<double>::quiet_NaN())), "null");
}

TEST(JsonText, OtherValuesKeepTheirCompactText) {
  EXPECT_EQ(Rewrite(R"( { "a" : [1, -2, true, null, "x\"y\n\u0001"], "b": {} } )"),
            R"({"a":[1,-2,true,null,"x\"y\n\u0001"],"b":{}})");
  EXPECT_EQ(Rewrite("18446744073709551615"), "18446744073709551615");
  EXPECT_EQ(Rewrite(R"({"z":1,"a":2})"), R"({"z":1,"a":2})");  // Write keeps the order
}

// Stored idempotency fingerprints are canonical texts: strings, integers and literals must keep
// exactly the bytes Boost.JSON's serializer wrote for them.
TEST(JsonText, StringsIntegersAndLiteralsAreTheBytesBoostJsonWrites) {
  for (int c = 0; c < 0x80; ++c) {
    const std::string one = std::string("a") + static_cast<char>(c) + "b";
    const boost::json::value v(one);
    EXPECT_EQ(Write(v), boost::json::serialize(v)) << "character " << c;
  }
  const boost::json::value mixed("\xc3\xa9 \t\"quoted\" \\ \x7f \x1f end");
  EXPECT_EQ(Write(mixed), boost::json::serialize(mixed));
  for (const boost::json::value& v :
       {boost::json::value(std::numeric_limits<std::int64_t>::min()),
        boost::json::value(std::numeric_limits<std::int64_t>::max()), boost::json::value(0),
        boost::json::value(-7), boost::json::value(std::numeric_limits<std::uint64_t>::max()),
        boost::json::value(true), boost::json::value(false), boost::json::value(nullptr)}) {
    EXPECT_EQ(Write(v), boost::json::serialize(v));
  }
  const auto nested = boost::json::parse(R"({"k\n":{"b":[1,"x",{"c":null}],"a":false}})");
  EXPECT_EQ(Write(nested), boost::json::serialize(nested));
  EXPECT_EQ(WriteCanonical(nested), R"({"k\n":{"a":false,"b":[1,"x",{"c":null}]}})");
}

// Long text is scanned eight bytes at a time: each character, at each place in a word and across
// words, is still escaped exactly as Boost.JSON escapes it, and a bad byte anywhere is repaired.
TEST(JsonText, LongTextIsEscapedAndRepairedAtEveryPosition) {
  for (int c = 0; c < 0x80; ++c) {
    for (std::size_t at = 0; at < 20; ++at) {
      std::string text(20, 'x');
      text[at] = static_cast<char>(c);
      const boost::json::value v(text);
      ASSERT_EQ(Write(v), boost::json::serialize(v)) << "character " << c << " at " << at;
    }
  }
  for (std::size_t at = 0; at < 20; ++at) {
    std::string text(20, 'y');
    text[at] = '\xff';
    std::string expected = '"' + text + '"';
    expected.replace(at + 1, 1, "\xEF\xBF\xBD");
    EXPECT_EQ(Write(boost::json::value(text)), expected) << "at " << at;
  }
  const boost::json::value utf8(std::string(17, 'z') + "\xc3\xa9\"" + std::string(9, 'z') + "\n");
  EXPECT_EQ(Write(utf8), boost::json::serialize(utf8));
}

TEST(JsonText, TextThatIsNotUtf8IsRepairedSoTheJsonIsValid) {
  const std::string latin1 = "caf\xe9 \xff end";
  const std::string written = Write(boost::json::value(latin1));
  EXPECT_EQ(written, "\"caf\xEF\xBF\xBD \xEF\xBF\xBD end\"");
  boost::system::error_code ec;
  (void)boost::json::parse(written, ec);  // Boost.JSON validates UTF-8
  EXPECT_FALSE(ec) << written;
  // Well-formed text of every length is kept as it is; overlong forms and surrogates are not.
  EXPECT_EQ(Write(boost::json::value("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80")),
            "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"");
  EXPECT_EQ(Write(boost::json::value("\xc0\xaf")), "\"\xEF\xBF\xBD\xEF\xBF\xBD\"");
  EXPECT_EQ(Write(boost::json::value("\xed\xa0\x80")), "\"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\"");
  EXPECT_EQ(Write(boost::json::value("cut \xe2\x82")), "\"cut \xEF\xBF\xBD\xEF\xBF\xBD\"");
}

TEST(JsonText, CanonicalSortsKeysAtEveryDepth) {
  EXPECT_EQ(WriteCanonical(boost::json::parse(R"({"z":{"b":1,"a":[{"y":0.5,"x":2}]},"a":"s"})")),
            R"({"a":"s","z":{"a":[{"x":2,"y":0.5}],"b":1}})");
  EXPECT_EQ(WriteCanonical(boost::json::parse(R"({"b":1,"a":2})")),
            WriteCanonical(boost::json::parse(R"({"a":2,"b":1})")));
}

TEST(JsonText, AnObjectWrittenMemberByMemberIsTheTextWriteGivesTheSameObject) {
  const boost::json::value arguments = boost::json::parse(R"({"id":[1,2.5,null],"ok":true})");
  const std::string odd = "tab\tquote\" caf\xe9 \x01";
  const std::string written = ObjectWriter()
                                  .String("text", odd)
                                  .Int("big", -9007199254740993)
                                  .Number("cost_usd", 0.0123)
                                  .Number("zero", 0.0)
                                  .Bool("ok", false)
                                  .Null("conversation_id")
                                  .Value("arguments", arguments)
                                  .String("empty", "")
                                  .Finish();
  boost::json::object same;
  same["text"] = odd;
  same["big"] = std::int64_t{-9007199254740993};
  same["cost_usd"] = 0.0123;
  same["zero"] = 0.0;
  same["ok"] = false;
  same["conversation_id"] = nullptr;
  same["arguments"] = arguments;
  same["empty"] = "";
  EXPECT_EQ(written, Write(same));
  EXPECT_EQ(ObjectWriter().Finish(), "{}");
}

TEST(JsonText, NestedObjectsAndArraysWrittenInPlaceAreTheTextWriteGivesTheSameTree) {
  ObjectWriter writer;
  writer.String("first", "a").Array("items");
  writer.Object().Int("n", 1).Array("tags").String("x").String("y\n").End().End();
  writer.Object().End();
  writer.String("loose");
  writer.Object().Object("inner").Null("nothing").End().Bool("ok", true).End();
  writer.End().Array("empty").End().Object("after").Number("cost_usd", 1.5).End();
  writer.Int("last", 7);
  const std::string written = writer.Finish();
  const auto same = boost::json::parse(
      R"({"first":"a","items":[{"n":1,"tags":["x","y\n"]},{},"loose",)"
      R"({"inner":{"nothing":null},"ok":true}],"empty":[],"after":{"cost_usd":1.5},"last":7})");
  EXPECT_EQ(written, Write(same));
  // An End with nothing open is ignored: the outermost object is Finish's to close.
  EXPECT_EQ(ObjectWriter().Int("a", 1).End().Int("b", 2).Finish(), R"({"a":1,"b":2})");
}

}  // namespace agentgate::json_text
