// The structural check of generated Python modules (tools/tessera/
// module_check.h): a module Python would reject is an internal error of the
// compile (exit 2, the kernel named), never a success (issue 33, item 1).
#include "module_check.h"

#include <gtest/gtest.h>

namespace tessera::cli {
namespace {

std::string ProblemOf(std::string_view text) {
  std::optional<PythonStructureProblem> problem = CheckPythonStructure(text);
  if (!problem) return "";
  return std::to_string(problem->line) + ":" + std::to_string(problem->column) +
         ": " + problem->message;
}

TEST(ModuleCheck, AcceptsWhatTheBackendsWrite) {
  EXPECT_EQ(ProblemOf("import jax\n"
                      "\n"
                      "\n"
                      "def _k_kernel(modes, x):\n"
                      "    # src: line 14\n"
                      "    pass\n"
                      "\n"
                      "\n"
                      "def k(x, *, interpret=False):\n"
                      "    if x.shape[0] == 0:  # an empty input\n"
                      "        return x\n"
                      "    y = f(a,\n"
                      "          b)[1:]  # a slice is no block\n"
                      "    s = '''a\n"
                      "def not_code(:\n"
                      "'''\n"
                      "    t = \"it's \\\" (\" + r'\\'' \\\n"
                      "        + f\"{x['a']}\"\n"
                      "    d = {1: 2}\n"
                      "    return lambda v: v\n"),
            "");
  EXPECT_EQ(ProblemOf("class A:\n  def f(self): return 1\n"), "");
  EXPECT_EQ(ProblemOf(""), "");
  EXPECT_EQ(ProblemOf("x = 1"), "");
}

// Item 1 of issue 33: a device function whose body is only a comment.
TEST(ModuleCheck, BodyOfOnlyACommentIsAnEmptyBlock) {
  EXPECT_EQ(ProblemOf("def _k_kernel(modes, x):\n"
                      "    # src: line 14\n"
                      "\n"
                      "def k(x):\n"
                      "    return x\n"),
            "4:1: expected an indented block after line 1");
  EXPECT_EQ(ProblemOf("def f():\n    if x:\n    # nothing\n"),
            "3:1: expected an indented block after line 2, got the end of "
            "the module");
}

TEST(ModuleCheck, Indentation) {
  EXPECT_EQ(ProblemOf("def f():\n    x = 1\n      y = 2\n"),
            "3:7: unexpected indent");
  EXPECT_EQ(ProblemOf("def f():\n    if x:\n        y = 2\n  z = 3\n"),
            "4:3: unindent does not match any outer indentation level");
  EXPECT_EQ(ProblemOf("  x = 1\n"), "1:3: unexpected indent");
  EXPECT_EQ(ProblemOf("def f():\n \tx = 1\n"),
            "2:1: indentation mixes tabs and spaces");
  EXPECT_EQ(ProblemOf("def f():\n\tx = 1\ndef g():\n    y = 1\n"),
            "4:1: indentation uses tabs on some lines and spaces on others");
}

TEST(ModuleCheck, Headers) {
  EXPECT_EQ(ProblemOf("def f()\n    return 1\n"),
            "1:1: 'def' statement without ':'");
  EXPECT_EQ(ProblemOf("x = y:\n    z\n"),
            "1:1: line ends in ':' but 'x' starts no block");
  EXPECT_EQ(ProblemOf("match = 1\n"), "");
}

TEST(ModuleCheck, BracketsAndStrings) {
  EXPECT_EQ(ProblemOf("x = f(a, [b)\n"),
            "1:12: ')' does not close '[' opened at 1:10");
  EXPECT_EQ(ProblemOf("x = f(a,\n  b\n"), "1:6: '(' is never closed");
  EXPECT_EQ(ProblemOf("x = a)\n"), "1:6: unmatched ')'");
  EXPECT_EQ(ProblemOf("x = 'abc\n"), "1:5: unterminated string literal");
  EXPECT_EQ(ProblemOf("x = \"\"\"abc\n"),
            "1:5: unterminated triple-quoted string");
  EXPECT_EQ(ProblemOf("x = 1 \\ + 2\n"),
            "1:7: '\\' outside a string must end its line");
}

TEST(ModuleCheck, EmittedModuleProblemIsAnInternalErrorNamingTheKernel) {
  std::vector<EmittedFile> files = {
      {"notes.txt", "def broken(:\n"},
      {"dead_if_pallas.py",
       "def _dead_if_kernel(modes, x):\n    # src: line 14\n\n\n"
       "def dead_if(modes, x):\n    return x\n"}};
  absl::Status status = CheckEmittedModules(files, {"other", "dead_if"});
  EXPECT_TRUE(absl::IsInternal(status));
  EXPECT_EQ(std::string(status.message()),
            "the generated module of kernel 'dead_if' is not valid Python: "
            "dead_if_pallas.py:5:1: expected an indented block after line 1 "
            "(in '_dead_if_kernel'); nothing was written");
  files.pop_back();
  EXPECT_TRUE(CheckEmittedModules(files, {"dead_if"}).ok());
}

}  // namespace
}  // namespace tessera::cli
