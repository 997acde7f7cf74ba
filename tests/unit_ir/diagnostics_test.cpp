#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "tessera/diagnostics.h"

#include "gtest/gtest.h"
#include "tessera/options.h"

namespace tessera {
namespace {

TEST(Diagnostics, RendersLineAndCaretSpanningTheLength) {
  DiagnosticEngine engine;
  engine.AddSource("k.py", "def f(x):\n    return x + yy\n");
  Diagnostic& error =
      engine.Error("k.py", SourceLoc{2, 16, 2}, "name 'yy' is not defined");
  DiagnosticEngine::AddNote(error, "k.py", SourceLoc{1, 7, 1},
                            "parameters are here");
  EXPECT_EQ(engine.RenderAll(),
            "k.py:2:16: error: name 'yy' is not defined\n"
            "      return x + yy\n"
            "                 ^~\n"
            "k.py:1:7: note: parameters are here\n"
            "  def f(x):\n"
            "        ^\n");
  EXPECT_EQ(engine.error_count(), 1u);
  EXPECT_TRUE(engine.has_errors());
}

TEST(Diagnostics, SeveritiesUnknownFilesAndNoLocation) {
  DiagnosticEngine engine;
  engine.Warning("c.toml", SourceLoc{3, 1, 0}, "odd");
  engine.Remark("", SourceLoc{}, "fyi");
  engine.Error("", SourceLoc{}, "bad flag");
  EXPECT_EQ(engine.RenderAll(),
            "c.toml:3:1: warning: odd\n"
            "remark: fyi\n"
            "error: bad flag\n");
  EXPECT_EQ(engine.error_count(), 1u);
  engine.Clear();
  EXPECT_FALSE(engine.has_errors());
  EXPECT_TRUE(engine.diagnostics().empty());
}

TEST(Diagnostics, CaretIsClampedAndTabsAreKept) {
  DiagnosticEngine engine;
  engine.AddSource("t.txt", "\tab\r\nxy");
  engine.AddSource("t.txt", "\tab\nxy");  // replaces the first text
  engine.Error("t.txt", SourceLoc{1, 2, 50}, "long");
  engine.Error("t.txt", SourceLoc{2, 9, 1}, "past the end");
  engine.Error("t.txt", SourceLoc{7, 1, 1}, "no such line");
  EXPECT_EQ(engine.RenderAll(),
            "t.txt:1:2: error: long\n"
            "  \tab\n"
            "  \t^~\n"
            "t.txt:2:9: error: past the end\n"
            "  xy\n"
            "    ^\n"
            "t.txt:7:1: error: no such line\n");
  engine.Clear();
  engine.AddSource("e.txt", "a\n\nb");
  engine.Error("e.txt", SourceLoc{2, 1, 1}, "empty line");
  engine.Error("other.txt", SourceLoc{1, 1, 1}, "unknown file");
  EXPECT_EQ(engine.RenderAll(),
            "e.txt:2:1: error: empty line\n"
            "  \n"
            "  ^\n"
            "other.txt:1:1: error: unknown file\n");
}

TEST(Diagnostics, ClosestName) {
  std::vector<std::string> names = {"emit_pipeline", "fori_loop", "unroll"};
  EXPECT_EQ(ClosestName("emit_pipline", names), "emit_pipeline");
  EXPECT_EQ(ClosestName("unrol", names), "unroll");
  EXPECT_EQ(ClosestName("fori", names), "");
  EXPECT_EQ(ClosestName("zzzzzz", names), "");
  EXPECT_EQ(ClosestName("x", {}), "");
  EXPECT_EQ(ClosestName("ab", {"ac", "ab"}), "ab");
  // Of equally close candidates the first wins.
  EXPECT_EQ(ClosestName("abcd", {"abce", "abcf"}), "abce");
  EXPECT_EQ(ClosestName("abcd", {"zzzzzzzz", "abcf", "abce"}), "abcf");
  // A swap of two neighbours is one edit (Damerau-Levenshtein): `hl.tiel`,
  // `out.dtpye` (issue 33, item 8), even in a short name.
  EXPECT_EQ(ClosestName("tiel", {"full", "tile", "zeros"}), "tile");
  EXPECT_EQ(ClosestName("dtpye", {"dim", "dtype", "size"}), "dtype");
  EXPECT_EQ(ClosestName("ab", {"ba"}), "ba");
  EXPECT_EQ(ClosestName("emti_pipelien", {"emit_pipeline"}), "emit_pipeline");
}

// The search gives up on a candidate early; it must still choose what a full
// optimal-string-alignment distance over every candidate chooses.
TEST(Diagnostics, ClosestNameAgreesWithFullEditDistance) {
  auto full_distance = [](const std::string& a, const std::string& b) {
    std::vector<std::vector<size_t>> table(a.size() + 1,
                                           std::vector<size_t>(b.size() + 1));
    for (size_t i = 0; i <= a.size(); ++i) table[i][0] = i;
    for (size_t j = 0; j <= b.size(); ++j) table[0][j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
      for (size_t j = 1; j <= b.size(); ++j) {
        table[i][j] = std::min({table[i - 1][j] + 1, table[i][j - 1] + 1,
                                table[i - 1][j - 1] + (a[i - 1] != b[j - 1])});
        if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
          table[i][j] = std::min(table[i][j], table[i - 2][j - 2] + 1);
        }
      }
    }
    return table[a.size()][b.size()];
  };
  uint32_t state = 12345;
  auto next = [&state](uint32_t range) {
    state = state * 1664525u + 1013904223u;
    return (state >> 8) % range;
  };
  auto random_name = [&]() {
    std::string name(1 + next(9), 'a');
    for (char& c : name) c = static_cast<char>('a' + next(3));
    return name;
  };
  for (int trial = 0; trial < 2000; ++trial) {
    const std::string name = random_name();
    std::vector<std::string> candidates(next(6));
    for (std::string& candidate : candidates) candidate = random_name();
    const size_t limit = std::max<size_t>(1, (name.size() + 2) / 3);
    std::string expected;
    size_t expected_distance = limit + 1;
    for (const std::string& candidate : candidates) {
      const size_t distance = full_distance(name, candidate);
      if (distance < expected_distance) {
        expected_distance = distance;
        expected = candidate;
      }
    }
    ASSERT_EQ(ClosestName(name, candidates), expected) << "name " << name;
  }
}

TEST(Options, DefaultsAndTomlSpelling) {
  std::vector<OptionSpec> specs = {
      {"lanes", OptionType::kInt, int64_t{128}, "lanes", {}},
      {"launcher", OptionType::kString, std::string("unroll"), "", {}},
      {"ratio", OptionType::kFloat, 1.0, "", {}},
      {"on", OptionType::kBool, true, "", {}},
      {"names",
       OptionType::kStringList,
       std::vector<std::string>{"a", "b\"c"},
       "",
       {}},
  };
  OptionMap map = DefaultOptions(specs);
  EXPECT_EQ(map.GetInt("lanes"), 128);
  EXPECT_EQ(map.GetString("launcher"), "unroll");
  EXPECT_EQ(map.GetInt("launcher", 7), 7);  // wrong type: fallback
  EXPECT_TRUE(map.GetBool("on"));
  EXPECT_EQ(OptionValueToString(*map.Find("lanes")), "128");
  EXPECT_EQ(OptionValueToString(*map.Find("ratio")), "1.0");
  EXPECT_EQ(OptionValueToString(*map.Find("on")), "true");
  EXPECT_EQ(OptionValueToString(*map.Find("launcher")), "\"unroll\"");
  EXPECT_EQ(OptionValueToString(*map.Find("names")), "[\"a\", \"b\\\"c\"]");
  EXPECT_EQ(OptionValueToString(OptionValue{0.25}), "0.25");
  EXPECT_EQ(OptionTypeName(OptionType::kStringList), "string list");
  EXPECT_EQ(OptionTypeName(OptionType::kInt), "integer");
}

}  // namespace
}  // namespace tessera
