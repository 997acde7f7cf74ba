// The open property registry: the core's own properties, registration by
// whoever defines a property (here the test, as a plugin would), the order
// sets print in, and the verifier of a registered property running from
// Verify and VerifyProperty.
#include <string>
#include <vector>

#include "samples.h"
#include "tessera/ir/text.h"
#include "tessera/ir/verifier.h"
#include "verifier_test_util.h"

namespace tessera::testing {
namespace {

// A property that holds when every function carries a `checked` attribute.
void VerifyEveryFunctionChecked(const Module& module,
                                VerificationReporter& reporter) {
  for (const Function& function : module.functions) {
    if (function.attr("checked") == nullptr) {
      reporter.FunctionError(function, "function has no 'checked' attribute");
    }
  }
}

Property Register(PropertyInfo info) {
  absl::StatusOr<Property> property = RegisterProperty(std::move(info));
  EXPECT_TRUE(property.ok()) << property.status();
  return property.value_or(Property());
}

Property CheckedProperty() {
  static const Property property =
      Register({"test_checked", "every function carries a 'checked' attribute",
                &VerifyEveryFunctionChecked});
  return property;
}

TEST(PropertyRegistry, TheCoreRegistersItsOwnPropertiesFirst) {
  ASSERT_GE(RegisteredProperties().size(), 2u);
  EXPECT_EQ(RegisteredProperties()[0], kSsaProperty);
  EXPECT_EQ(RegisteredProperties()[1], kOutlinedProperty);
  EXPECT_EQ(kSsaProperty.name(), "ssa");
  EXPECT_EQ(kOutlinedProperty.name(), "outlined");
  EXPECT_EQ(FindProperty("ssa"), kSsaProperty);
  EXPECT_NE(kSsaProperty.info().verifier, nullptr);
  EXPECT_FALSE(FindProperty("nope").has_value());
}

TEST(PropertyRegistry, SameDefinitionAgainIsTheSameHandle) {
  const Property first = CheckedProperty();
  absl::StatusOr<Property> again = RegisterProperty(
      {"test_checked", "every function carries a 'checked' attribute",
       &VerifyEveryFunctionChecked});
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(*again, first);
  EXPECT_EQ(FindProperty("test_checked"), first);
}

TEST(PropertyRegistry, ConflictsAndMalformedNamesAreRefused) {
  CheckedProperty();
  absl::StatusOr<Property> conflict =
      RegisterProperty({"test_checked", "something else", nullptr});
  EXPECT_EQ(conflict.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_NE(conflict.status().message().find("test_checked"),
            std::string::npos);
  for (const char* name : {"", "Upper", "has-dash", "9lives", "sp ace"}) {
    EXPECT_FALSE(RegisterProperty({name, "bad", nullptr}).ok()) << name;
  }
  EXPECT_EQ(
      RegisterProperty({"ssa", "not the core's", nullptr}).status().code(),
      absl::StatusCode::kAlreadyExists);
}

TEST(PropertyRegistry, SetsListTheCorePropertiesFirstThenByName) {
  const Property zeta = Register({"test_zeta", "z", nullptr});
  const Property alpha = Register({"test_alpha", "a", nullptr});
  PropertySet set{zeta, kOutlinedProperty, alpha, kSsaProperty};
  EXPECT_EQ(set.ToString(), "ssa, outlined, test_alpha, test_zeta");
  EXPECT_TRUE(set.ContainsAll(PropertySet{kSsaProperty, alpha}));
  EXPECT_EQ(set.Minus({kSsaProperty, kOutlinedProperty, zeta}).ToVector(),
            std::vector<Property>{alpha});
  EXPECT_EQ(PropertySet{}.ToString(), "");
}

TEST(PropertyRegistry, RefsResolveByNameAndReportUnknownOnes) {
  const Property checked = CheckedProperty();
  std::vector<std::string> unknown;
  PropertySet set =
      ResolveProperties({kSsaProperty, "test_checked", "no_such"}, &unknown);
  EXPECT_EQ(set, (PropertySet{kSsaProperty, checked}));
  EXPECT_EQ(unknown, std::vector<std::string>{"no_such"});
}

TEST(PropertyRegistry, VerifyRunsTheRegisteredVerifier) {
  const Property checked = CheckedProperty();
  Module module = ParseTir(kOutlinedAdd);
  VerifyOutcome claimed = RunVerify(module, {kSsaProperty, checked});
  EXPECT_FALSE(claimed.status.ok());
  EXPECT_NE(claimed.rendered.find("function has no 'checked' attribute"),
            std::string::npos)
      << claimed.rendered;
  EXPECT_FALSE(RunVerifyProperty(module, checked).status.ok());

  for (Function& function : module.functions) {
    function.attrs.push_back(Attr{"checked", true});
  }
  EXPECT_TRUE(IsClean(RunVerify(module, {kSsaProperty, checked})));
  EXPECT_TRUE(IsClean(RunVerifyProperty(module, checked)));
}

TEST(PropertyRegistry, APropertyWithoutAVerifierAlwaysHolds) {
  const Property unchecked = Register({"test_unchecked", "no checks", nullptr});
  Module module = ParseTir(kOutlinedAdd);
  EXPECT_TRUE(IsClean(RunVerify(module, {unchecked})));
  EXPECT_TRUE(IsClean(RunVerifyProperty(module, unchecked)));
}

TEST(PropertyRegistry, RegisteredNamesParseAndPrintInModuleHeaders) {
  CheckedProperty();
  Module module =
      ParseTir(R"(module "kernels/test.py" properties [test_checked, ssa]
)");
  EXPECT_EQ(module.properties, (PropertySet{kSsaProperty, CheckedProperty()}));
  EXPECT_NE(PrintModule(module).find("properties [ssa, test_checked]"),
            std::string::npos)
      << PrintModule(module);
}

}  // namespace
}  // namespace tessera::testing
