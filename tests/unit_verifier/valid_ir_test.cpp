// Valid IR passes the verifier in every mode it is claimed in.
#include "gtest/gtest.h"
#include "samples.h"
#include "tessera/ir/text.h"
#include "verifier_test_util.h"

namespace tessera::testing {
namespace {

TEST(ValidIrTest, StructuredModulePasses) {
  Module module = ParseTir(kStructuredMatmul);
  EXPECT_TRUE(IsClean(RunVerify(module)));
}

TEST(ValidIrTest, SsaModulePassesWithAndWithoutTheSsaProperty) {
  Module module = ParseTir(kSsaMatmul);
  EXPECT_TRUE(module.properties.Contains(kSsaProperty));
  EXPECT_TRUE(IsClean(RunVerify(module)));
  EXPECT_TRUE(IsClean(RunVerify(module, module.properties)));
  EXPECT_TRUE(IsClean(RunVerifyProperty(module, kSsaProperty)));
}

TEST(ValidIrTest, OutlinedModulePassesAllItsProperties) {
  Module module = ParseTir(kOutlinedAdd);
  EXPECT_TRUE(IsClean(RunVerify(module, module.properties)));
  EXPECT_TRUE(IsClean(RunVerifyProperty(module, kSsaProperty)));
  EXPECT_TRUE(IsClean(RunVerifyProperty(module, kOutlinedProperty)));
}

TEST(ValidIrTest, PrintedAndReparsedModulesStillVerify) {
  for (std::string_view text : {kStructuredMatmul, kSsaMatmul, kOutlinedAdd}) {
    Module module = ParseTir(text);
    Module reparsed = ParseTir(PrintModule(module));
    EXPECT_TRUE(IsClean(RunVerify(reparsed, reparsed.properties)))
        << PrintModule(module);
  }
}

}  // namespace
}  // namespace tessera::testing
