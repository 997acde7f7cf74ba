// A count the cost model declares to XLA (elements, flops, bytes) that may
// depend on sizes known only when the generated host function runs: a
// polynomial with integer coefficients over atoms, each atom a Python
// expression of the host's sizes (`x_d0`, `pl.cdiv(x_d1, 128)`). With static
// shapes every count folds to a constant, so one piece of model code gives
// both the report's numbers and the generated pl.CostEstimate's expressions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tessera::pallas {

class Count {
 public:
  Count() = default;
  Count(int64_t constant);  // NOLINT: counts mix freely with integers
  // A Python expression of the host's sizes (an integer literal folds).
  static Count Python(const std::string& text);

  bool is_constant() const;
  // The constant term (the whole count when is_constant()).
  int64_t constant() const;
  // The count as a double for the timing model: its constant when static,
  // `fallback` otherwise (the timing model refuses symbolic plans first).
  double StaticOr(double fallback) const;
  // Readable and byte-stable: terms in a fixed order, constant last.
  std::string ToPython() const;

  Count& operator+=(const Count& other);
  Count& operator-=(const Count& other);
  Count& operator*=(const Count& other);
  friend Count operator+(Count a, const Count& b) { return a += b; }
  friend Count operator-(Count a, const Count& b) { return a -= b; }
  friend Count operator*(Count a, const Count& b) { return a *= b; }
  friend bool operator==(const Count& a, const Count& b) {
    return a.constant_ == b.constant_ && a.terms_ == b.terms_;
  }
  // This count divided by b when every coefficient is a multiple of b (the
  // atoms are integers, so the quotient is exact).
  std::optional<Count> DividedExactly(int64_t b) const;

 private:
  // coefficient x product of atoms (sorted), never 0, atoms never empty.
  struct Term {
    std::vector<std::string> atoms;
    int64_t coefficient = 0;
    friend bool operator==(const Term& a, const Term& b) {
      return a.coefficient == b.coefficient && a.atoms == b.atoms;
    }
  };
  // Static counts (the common case) are the constant alone: no allocation.
  int64_t constant_ = 0;
  std::vector<Term> terms_;  // sorted by atoms, atoms unique
};

// ceil(a / b), floor(a / b), a mod b, a rounded up to a multiple of b, for
// b >= 1 and a >= 0 (sizes).
Count CeilDiv(const Count& a, int64_t b);
Count FloorDiv(const Count& a, int64_t b);
Count Mod(const Count& a, int64_t b);
Count RoundUp(const Count& a, int64_t b);

}  // namespace tessera::pallas
