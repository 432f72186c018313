// InputError's one line is printable UTF-8 whatever bytes the input held.
#include "hetsched/core/input_error.hpp"

#include <gtest/gtest.h>

#include <string>

namespace hetsched {
namespace {

TEST(InputErrorText, WellFormedUtf8IsKeptAndEveryOtherByteEscaped) {
  EXPECT_EQ(printable_text("caf\xC3\xA9 \xE2\x9C\x93 \xF0\x9F\x9A\x80"),
            "caf\xC3\xA9 \xE2\x9C\x93 \xF0\x9F\x9A\x80");
  EXPECT_EQ(printable_text(std::string("a\xFF\xFE" "b", 4)), "a\\xFF\\xFEb");
  EXPECT_EQ(printable_text(std::string("nul\0tab\t", 8)), "nul\\x00tab\\x09");
  EXPECT_EQ(printable_text("\xC0\xAF"), "\\xC0\\xAF");          // overlong '/'
  EXPECT_EQ(printable_text("\xED\xA0\x80"), "\\xED\\xA0\\x80");  // a surrogate
  EXPECT_EQ(printable_text("\xE2\x9C"), "\\xE2\\x9C");          // cut short
}

TEST(InputErrorText, TheMessageOfAnErrorIsPrintable) {
  const InputError error(SourcePosition{"bin\x01.yaml", 2, 3},
                         std::string("unknown field '\x89PNG\r'"));
  EXPECT_EQ(std::string(error.what()), "bin\\x01.yaml:2:3: unknown field '\\x89PNG\\x0D'");
}

}  // namespace
}  // namespace hetsched
