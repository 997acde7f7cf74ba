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
  EXPECT_TRUE(module.properties.Contains(Property::kSSA));
  EXPECT_TRUE(IsClean(RunVerify(module)));
  EXPECT_TRUE(IsClean(RunVerify(module, module.properties)));
  EXPECT_TRUE(IsClean(RunVerifyProperty(module, Property::kSSA)));
}

TEST(ValidIrTest, OutlinedModulePassesAllItsProperties) {
  Module module = ParseTir(kOutlinedAdd);
  EXPECT_TRUE(IsClean(RunVerify(module, module.properties)));
  EXPECT_TRUE(IsClean(RunVerifyProperty(module, Property::kSSA)));
  EXPECT_TRUE(IsClean(RunVerifyProperty(module, Property::kOutlined)));
}

TEST(ValidIrTest, PropertiesWithoutChecksYetAcceptValidIr) {
  // pre-broadcast and atomic-accumulator define their checks with their
  // passes (issue 6); until then valid IR passes.
  Module module = ParseTir(kOutlinedAdd);
  EXPECT_TRUE(IsClean(RunVerifyProperty(module, Property::kPreBroadcast)));
  EXPECT_TRUE(IsClean(RunVerifyProperty(module, Property::kAtomicAccumulated)));
  EXPECT_TRUE(IsClean(RunVerify(
      module, {Property::kPreBroadcast, Property::kAtomicAccumulated})));
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
