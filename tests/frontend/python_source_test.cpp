// The whole kernel file must be source CPython 3.11 accepts (issue 33,
// item 2): what its tokenizer or block structure rejects anywhere in the
// file is one located error, and what it accepts still compiles. Deep and
// long expressions are a located error, never a crash (item 3).
#include <gtest/gtest.h>

#include <string>

#include "frontend_test_util.h"

namespace tessera::helion_py::testing {
namespace {

const char* kSourceHead =
    "import torch\n"                          // 1
    "import helion\n"                         // 2
    "import helion.language as hl\n"          // 3
    "\n"                                      // 4
    "@helion.kernel()\n"                      // 5
    "def k(x, y):\n"                          // 6
    "    out = torch.empty_like(x)\n"         // 7
    "    for tile in hl.tile(x.size(0)):\n";  // 8 -> body lines from 9

const std::map<std::string, std::string> kSourceArgs = {{"x", "f32[256]"},
                                                        {"y", "f32[256]"}};

CompileResult CompileSourceBody(const std::string& body,
                                const std::string& tail = "    return out\n") {
  return Compile(std::string(kSourceHead) + body + tail, kSourceArgs);
}

// Exactly one error, at line:col, containing `part`: CPython stops at the
// first, and nothing after a broken line can be trusted.
void ExpectOnlySourceError(const CompileResult& r, uint32_t line, uint32_t col,
                           const std::string& part) {
  ASSERT_EQ(r.errors.size(), 1u) << r.diagnostics;
  const Diagnostic& d = r.errors[0];
  EXPECT_EQ(d.file, "kernel.py");
  EXPECT_EQ(d.loc.line, line) << d.message;
  EXPECT_EQ(d.loc.col, col) << d.message;
  EXPECT_NE(d.message.find(part), std::string::npos) << d.message;
}

void ExpectSourceCompiles(const CompileResult& r) {
  EXPECT_TRUE(r.errors.empty()) << r.diagnostics;
  EXPECT_TRUE(r.module.has_value()) << r.diagnostics;
}

const char* kSourceStore = "        out[tile] = x[tile] + y[tile]\n";

TEST(PythonSource, IfAtColumnZeroInsideAKernel) {
  // Python reads the `if` as a new top-level statement; the `return` after
  // it then matches no indentation level.
  CompileResult r = CompileSourceBody(
      "        v = x[tile]\n"
      "if True:\n"
      "        out[tile] = v + y[tile]\n");
  ExpectOnlySourceError(r, 12, 5,
                        "unindent does not match any outer indentation");
}

TEST(PythonSource, UnindentMismatch) {
  ExpectOnlySourceError(
      CompileSourceBody("        v = x[tile]\n      out[tile] = v\n"), 10, 7,
      "unindent does not match any outer indentation");
}

TEST(PythonSource, TabsAndSpacesInconsistent) {
  // Eight spaces and one tab are the same column with tab size 8 but not
  // with tab size 1: the meaning depends on the tab size (TabError).
  ExpectOnlySourceError(
      CompileSourceBody("        v = x[tile]\n\tout[tile] = v\n"), 10, 2,
      "inconsistent use of tabs and spaces");
}

TEST(PythonSource, TabsConsistentAreAccepted) {
  CompileResult r = Compile(
      "import torch\nimport helion\nimport helion.language as hl\n"
      "@helion.kernel()\ndef k(x, y):\n\tout = torch.empty_like(x)\n"
      "\tfor tile in hl.tile(x.size(0)):\n\t\tout[tile] = x[tile] + y[tile]\n"
      "\treturn out\n",
      kSourceArgs);
  ExpectSourceCompiles(r);
}

TEST(PythonSource, UnexpectedIndent) {
  ExpectOnlySourceError(
      CompileSourceBody(std::string(kSourceStore) + "            pass\n"), 10,
      13, "unexpected indent");
}

TEST(PythonSource, ExpectedAnIndentedBlock) {
  ExpectOnlySourceError(CompileSourceBody("        if x.size(0) > 0:\n" +
                                          std::string(kSourceStore)),
                        10, 9,
                        "expected an indented block after 'if' statement");
}

TEST(PythonSource, ElseAfterASimpleStatement) {
  ExpectOnlySourceError(CompileSourceBody(std::string(kSourceStore) +
                                          "        else:\n            pass\n"),
                        10, 9, "'else' does not continue");
}

TEST(PythonSource, TryWithoutExceptOutsideTheKernel) {
  CompileResult r = Compile(std::string(kSourceHead) + kSourceStore +
                                "    return out\n\ntry:\n    pass\nx = 1\n",
                            kSourceArgs);
  ExpectOnlySourceError(r, 14, 1, "expected 'except' or 'finally' block");
}

TEST(PythonSource, ReturnOutsideAFunction) {
  // The kernel's `return` dedented to column 0: Python refuses to import
  // the file; the kernel must not compile without it.
  ExpectOnlySourceError(CompileSourceBody(kSourceStore, "return out\n"), 10, 1,
                        "'return' outside function");
  ExpectOnlySourceError(Compile(std::string(kSourceHead) + kSourceStore +
                                    "    return out\nif True: x = 1; break\n",
                                kSourceArgs),
                        11, 17, "'break' outside loop");
  ExpectOnlySourceError(Compile(std::string(kSourceHead) + kSourceStore +
                                    "    return out\nclass C:\n    continue\n",
                                kSourceArgs),
                        12, 5, "'continue' not properly in loop");
}

TEST(PythonSource, UnclosedParenthesisAtEndOfFile) {
  ExpectOnlySourceError(CompileSourceBody(kSourceStore, "    return (out\n"),
                        10, 12, "'(' was never closed");
}

TEST(PythonSource, MismatchedAndUnmatchedBrackets) {
  ExpectOnlySourceError(
      CompileSourceBody("        out[tile] = x[tile) + y[tile]\n"), 9, 27,
      "closing parenthesis ')' does not match opening");
  ExpectOnlySourceError(CompileSourceBody(kSourceStore, "    return out)\n"),
                        10, 15, "unmatched ')'");
}

TEST(PythonSource, NulByteEvenInAComment) {
  ExpectOnlySourceError(
      CompileSourceBody(std::string("        out[tile] = x[tile]  # a") + '\0' +
                        "\n"),
      9, 33, "null bytes");
}

TEST(PythonSource, InvalidUtf8EvenInAComment) {
  ExpectOnlySourceError(
      CompileSourceBody("        out[tile] = x[tile]  # \xff\n"), 9, 32,
      "invalid UTF-8");
  // A truncated sequence and an encoded surrogate are invalid too.
  ExpectOnlySourceError(
      CompileSourceBody("        out[tile] = x[tile]  # \xe2\x82\n"), 9, 32,
      "invalid UTF-8");
  ExpectOnlySourceError(
      CompileSourceBody("        out[tile] = x[tile]  # \xed\xa0\x80\n"), 9, 32,
      "invalid UTF-8");
}

TEST(PythonSource, NoBreakSpaceInAnIdentifier) {
  ExpectOnlySourceError(
      CompileSourceBody("        out[tile] = x[tile] + y\xc2\xa0[tile]\n"), 9,
      32, "invalid non-printable character U+00A0");
}

TEST(PythonSource, BidiControlOutsideStringsAndComments) {
  ExpectOnlySourceError(
      CompileSourceBody("        out[tile] = x[tile] + y\xe2\x80\xae[tile]\n"),
      9, 32, "invalid non-printable character U+202E");
}

TEST(PythonSource, InvalidAsciiCharacters) {
  ExpectOnlySourceError(CompileSourceBody("        out[tile] = x[tile] $ 2\n"),
                        9, 29, "invalid character '$'");
  ExpectOnlySourceError(CompileSourceBody("        out[tile] = x[tile] ! 2\n"),
                        9, 29, "invalid character '!'");
  ExpectOnlySourceError(CompileSourceBody("        out[tile] = x[tile] \\ 2\n"),
                        9, 29, "unexpected character after line continuation");
  ExpectOnlySourceError(CompileSourceBody("        out[tile] = x[tile]\x01\n"),
                        9, 28, "invalid non-printable character U+0001");
}

TEST(PythonSource, BinaryGarbage) {
  std::string garbage =
      "\x7f"
      "ELF\x02\x01\x01";
  garbage += '\0';
  garbage += "\x89PNG\r\n\x1a\n";
  CompileResult r = Compile(garbage, kSourceArgs);
  ASSERT_EQ(r.errors.size(), 1u) << r.diagnostics;
  EXPECT_TRUE(r.errors[0].loc.known());
}

TEST(PythonSource, UnterminatedStrings) {
  ExpectOnlySourceError(CompileSourceBody("        out[tile] = x[tile]\n"
                                          "    assert True, 'never closed\n"),
                        10, 18,
                        "unterminated string literal (detected at line 10)");
  ExpectOnlySourceError(
      CompileSourceBody(kSourceStore, "    return out\n\"\"\"doc\n"), 11, 1,
      "unterminated triple-quoted string literal");
}

TEST(PythonSource, MalformedNumbers) {
  ExpectOnlySourceError(
      CompileSourceBody("        out[tile] = x[tile] * 1abc\n"), 9, 31,
      "invalid decimal literal");
  ExpectOnlySourceError(CompileSourceBody("        out[tile] = x[tile] * 0x\n"),
                        9, 31, "invalid hexadecimal literal");
  ExpectOnlySourceError(
      CompileSourceBody("        out[tile] = x[tile] * 1__0\n"), 9, 31,
      "invalid decimal literal");
  ExpectOnlySourceError(
      CompileSourceBody("        out[tile] = x[tile] * 017\n"), 9, 31,
      "leading zeros");
}

TEST(PythonSource, WhatPythonAcceptsStillCompiles) {
  // A BOM, a coding cookie, non-ASCII identifiers, a no-break space and a
  // bidi control inside strings and comments, numbers glued to keywords,
  // and every compound statement outside the kernel.
  CompileResult r = Compile(
      "\xef\xbb\xbf# -*- coding: utf-8 -*-\n"
      "import torch\nimport helion\nimport helion.language as hl\n"
      "caf\xc3\xa9 = 1  # \xc2\xa0 \xe2\x80\xae\n"
      "note = '\xc2\xa0\xe2\x80\xae'\n"
      "n = 1if caf\xc3\xa9 else 0x_ff + 1_000.5e-3j.imag + 0o17 + 0b1 + 00\n"
      "for i in range(3):\n    pass\nelse:\n    pass\n"
      "while False:\n    pass\nelse:\n    pass\n"
      "try:\n    pass\nexcept ValueError:\n    pass\nexcept (TypeError,\n"
      "        KeyError):\n    pass\nelse:\n    pass\nfinally:\n    pass\n"
      "try:\n    pass\nfinally:\n    pass\n"
      "if n:\n    pass\nelif n > 1:\n    pass\nelse:\n    pass\n"
      "match n:\n    case 1:\n        pass\n    case _:\n        pass\n"
      "for i in range(3): continue\nwhile True:\n    if n: break\n"
      "    def g(): return 1; yield\n    break\n"
      "class C:\n    @staticmethod\n    def f():  # comment\n\n"
      "        # at any indentation\n  # really\n        return f'{n!r}'\n"
      "x = [\n1,\n  2]; y = 3 \\\n  + 4\n\f\n"
      "@helion.kernel()\n"
      "def k(x, y):\n"
      "    r\xc3\xa9sultat = torch.empty_like(x)\n"
      "    for tile in hl.tile(x.size(0)):\n"
      "        r\xc3\xa9sultat[tile] = x[tile] + y[tile]  # \xe2\x80\xae\n"
      "    return r\xc3\xa9sultat\n",
      kSourceArgs);
  ExpectSourceCompiles(r);
}

TEST(PythonSource, OtherEncodingsOnlyWhenAscii) {
  ExpectSourceCompiles(Compile("# coding: latin-1\n" +
                                   std::string(kSourceHead) + kSourceStore +
                                   "    return out\n",
                               kSourceArgs));
  ExpectOnlySourceError(
      Compile("# coding: latin-1\n# caf\xe9\n" + std::string(kSourceHead) +
                  kSourceStore + "    return out\n",
              kSourceArgs),
      2, 6, "encoding 'latin-1'");
}

std::string RepeatText(const std::string& part, size_t times) {
  std::string out;
  out.reserve(part.size() * times);
  for (size_t i = 0; i < times; ++i) out += part;
  return out;
}

TEST(PythonSource, LongSubscriptChainIsAnError) {
  ExpectOnlySourceError(CompileSourceBody("        out[tile] = x[tile]" +
                                          RepeatText("[0]", 4000) + "\n"),
                        9, 21, "expression is too deep");
}

TEST(PythonSource, LongSumIsAnError) {
  ExpectOnlySourceError(
      CompileSourceBody("        out[tile] = x[tile]" +
                        RepeatText(" + x[tile]", 10000) + "\n"),
      9, 21, "expression is too deep");
}

TEST(PythonSource, OtherLongChainsAreErrors) {
  for (const std::string& chain :
       {RepeatText(".T", 5000), RepeatText("()", 5000),
        RepeatText(" * 2", 5000), RepeatText(" if x else y", 5000),
        RepeatText(" or y", 50000)}) {
    CompileResult r =
        CompileSourceBody("        out[tile] = x[tile]" + chain + "\n");
    ASSERT_FALSE(r.errors.empty()) << chain.substr(0, 12);
    EXPECT_TRUE(r.errors[0].loc.known()) << r.errors[0].message;
  }
  CompileResult r = CompileSourceBody(
      "        out[tile] = " + RepeatText("-", 5000) + "x[tile]\n");
  ExpectOnlySourceError(r, 9, 82, "nested too deeply");
}

TEST(PythonSource, ChainsUnderTheLimitCompile) {
  ExpectSourceCompiles(CompileSourceBody("        out[tile] = x[tile]" +
                                         RepeatText(" + x[tile]", 150) + "\n"));
}

TEST(PythonSource, LongElifChainIsAnError) {
  std::string body = "        if x.size(0) == 0:\n            pass\n";
  for (int i = 1; i < 5000; ++i) {
    body += "        elif x.size(0) == " + std::to_string(i) +
            ":\n            pass\n";
  }
  CompileResult r = CompileSourceBody(body + kSourceStore);
  ASSERT_FALSE(r.errors.empty());
  EXPECT_NE(r.errors[0].message.find("too many 'elif' branches"),
            std::string::npos)
      << r.errors[0].message;
}

TEST(PythonSource, EveryKernelReportsItsOwnTooDeepExpression) {
  const std::string deep = "x" + RepeatText(" + x", 300) + "\n";
  CompileResult r = Compile(
      "import helion\n"
      "@helion.kernel\n"
      "def a(x):\n"
      "    y = " +
          deep +
          "    return y\n"
          "@helion.kernel\n"
          "def b(x):\n"
          "    y = " +
          deep + "    return y\n",
      {{"x", "f32[8]"}});
  ASSERT_EQ(r.errors.size(), 2u) << r.diagnostics;
  EXPECT_EQ(r.errors[0].loc.line, 4u);
  EXPECT_EQ(r.errors[1].loc.line, 8u);
}

TEST(PythonSource, LambdaThatCallsItselfIsAnError) {
  // Inlining it would never end; calling itself twice must not take 2^200
  // steps to fail either.
  for (const char* body :
       {"    f = lambda v: f(v)\n", "    f = lambda v: f(v) + f(v)\n"}) {
    CompileResult r = Compile(
        std::string(kSourceHead) + "        out[tile] = x[tile]\n" + body +
            "    for tile in hl.tile(x.size(0)):\n"
            "        out[tile] = f(x[tile])\n    return out\n",
        kSourceArgs);
    ASSERT_FALSE(r.errors.empty()) << body;
    EXPECT_EQ(r.errors[0].loc.line, 10u) << r.diagnostics;
    EXPECT_NE(r.errors[0].message.find("lambda calls are nested"),
              std::string::npos)
        << r.diagnostics;
  }
}

TEST(PythonSource, TallLambdasCallingEachOtherAreAnError) {
  // Each body is under the parser's height limit, but inlining stacks them:
  // the lowering's own recursion limit catches it.
  std::string lambdas = "    f0 = lambda v: v" + RepeatText(" + 1", 150) + "\n";
  for (int i = 1; i < 60; ++i) {
    lambdas += "    f" + std::to_string(i) + " = lambda v: f" +
               std::to_string(i - 1) + "(v)" + RepeatText(" + 1", 150) + "\n";
  }
  CompileResult r = Compile(std::string(kSourceHead) +
                                "        out[tile] = x[tile]\n" + lambdas +
                                "    for tile in hl.tile(x.size(0)):\n"
                                "        out[tile] = f59(x[tile])\n"
                                "    return out\n",
                            kSourceArgs);
  ASSERT_FALSE(r.errors.empty());
  EXPECT_NE(r.errors[0].message.find("expression is too deep to lower"),
            std::string::npos)
      << r.errors[0].message;
}

TEST(PythonSource, DiagnosticOnAHugeLineQuotesAWindow) {
  const std::string line = "        out[tile] = x[tile]" +
                           RepeatText(" + y[tile]", 1'000'000) + "\n";
  CompileResult r = CompileSourceBody(line);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_LT(r.diagnostics.size(), 1000u);
  EXPECT_NE(r.diagnostics.find("...\n"), std::string::npos) << r.diagnostics;
}

}  // namespace
}  // namespace tessera::helion_py::testing
