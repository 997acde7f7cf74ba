// Identifier hygiene of the generated Python.
#include <gtest/gtest.h>

#include "python_writer.h"

namespace tessera::pallas {
namespace {

TEST(Names, SanitizeKeepsValidIdentifiers) {
  EXPECT_EQ(SanitizeIdentifier("acc_1"), "acc_1");
  EXPECT_EQ(SanitizeIdentifier("tile_m"), "tile_m");
}

TEST(Names, SanitizeFixesInvalidCharactersAndDigits) {
  EXPECT_EQ(SanitizeIdentifier("acc.1"), "acc_1");
  EXPECT_EQ(SanitizeIdentifier("1x"), "_1x");
  EXPECT_EQ(SanitizeIdentifier(""), "_");
}

TEST(Names, SanitizeAvoidsKeywordsAndModuleNames) {
  EXPECT_EQ(SanitizeIdentifier("lambda"), "lambda_");
  EXPECT_EQ(SanitizeIdentifier("jnp"), "jnp_");
  EXPECT_EQ(SanitizeIdentifier("pl"), "pl_");
  EXPECT_EQ(SanitizeIdentifier("range"), "range_");
  EXPECT_EQ(SanitizeIdentifier("interpret"), "interpret_");
}

TEST(Names, FreshNamesNeverCollideWithSourceNames) {
  NameTable names;
  names.AddSourceName("acc_scratch");
  names.AddSourceName("acc_scratch_1");
  std::string fresh = names.Fresh("acc_scratch");
  EXPECT_NE(fresh, "acc_scratch");
  EXPECT_NE(fresh, "acc_scratch_1");
  EXPECT_TRUE(names.Contains(fresh));
  EXPECT_NE(names.Fresh("acc_scratch"), fresh);
}

TEST(PyLines, IndentsNestedBlocks) {
  PyLines inner;
  inner.Line("x = 1");
  PyLines outer;
  outer.Line("def f():");
  outer.Indent();
  outer.Append(inner);
  outer.Dedent();
  EXPECT_EQ(outer.Text(), "def f():\n    x = 1\n");
}

TEST(PyLines, DropsUnusedShapeReadsAndTheirOrphanedSourceComments) {
  // The sizes of `m, n = x.size()` the kernel never uses would be unused
  // locals (pyflakes); a read another line mentions stays, and so does a
  // non-shape assignment.
  PyLines host;
  host.Line("def f(x, y):");
  host.Indent();
  host.Line("# src: line 3");
  host.Line("m = x.shape[0]");
  host.Line("n = x.shape[-1]");
  host.Line("# src: line 4");
  host.Line("k = y.shape[1]");
  host.Line("unused = x + 1");
  host.Line("# src: line 5");
  host.Line("return jnp.zeros((n, 2))");
  EXPECT_EQ(DropUnusedShapeReads(host).Text(),
            "def f(x, y):\n"
            "    # src: line 3\n"
            "    n = x.shape[-1]\n"
            "    # src: line 4\n"
            "    unused = x + 1\n"
            "    # src: line 5\n"
            "    return jnp.zeros((n, 2))\n");
  PyLines only_reads;
  only_reads.Line("# src: line 3");
  only_reads.Line("m = x.shape[0]");
  only_reads.Line("# src: line 4");
  only_reads.Line("return x");
  EXPECT_EQ(DropUnusedShapeReads(only_reads).Text(),
            "# src: line 4\nreturn x\n");
}

// A block left with only comments (an `if` with no effect, its statements
// dropped as unused) gets `pass`, or Python would not import the module.
TEST(Names, EmptyBlocksGetPass) {
  EXPECT_EQ(FillEmptyBlocks("def _k_kernel(modes, x):\n    # src: line 9\n\n\n"
                            "def k(x):\n    return x\n"),
            "def _k_kernel(modes, x):\n    # src: line 9\n    pass\n\n\n"
            "def k(x):\n    return x\n");
  EXPECT_EQ(FillEmptyBlocks("    if c:\n    y = 1\n"),
            "    if c:\n        pass\n    y = 1\n");
  EXPECT_EQ(FillEmptyBlocks("def f():"), "def f():\n    pass");
  // Blocks with statements, dict literals and comments ending in ':' stay.
  const std::string kept =
      "def f(x):\n    # a comment:\n    d = {1:\n        2}\n"
      "    if x:\n        return d\n";
  EXPECT_EQ(FillEmptyBlocks(kept), kept);
}

}  // namespace
}  // namespace tessera::pallas
