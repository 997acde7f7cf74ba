#include "count.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <optional>

#include "fmt/format.h"

namespace tessera::pallas {

namespace {

// Counts saturate at int64's bounds instead of wrapping: signed overflow is
// undefined behaviour, and a wrapped count was a negative flop count in a
// generated pl.CostEstimate (a 4e6 x 4e6 matmul). A count that large is
// past anything one kernel call does; the bound reads "at least this".
int64_t Add(int64_t a, int64_t b) {
  int64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) {
    return b > 0 ? std::numeric_limits<int64_t>::max()
                 : std::numeric_limits<int64_t>::min();
  }
  return sum;
}

int64_t Multiply(int64_t a, int64_t b) {
  int64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product)) {
    return (a < 0) != (b < 0) ? std::numeric_limits<int64_t>::min()
                              : std::numeric_limits<int64_t>::max();
  }
  return product;
}

}  // namespace
namespace {

bool IsIntegerLiteral(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
}

// True when `text` must be parenthesized as a factor of a product: it has
// an operator outside brackets (`a + b`, `a // 8`), not a name, an index or
// a call (`x.shape[0]`, `pl.cdiv(x_d0, 128)`).
bool NeedsParens(const std::string& text) {
  int depth = 0;
  for (char c : text) {
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
    if (depth == 0 && (c == ' ' || c == '+' || c == '-' || c == '*' ||
                       c == '/' || c == '%')) {
      return true;
    }
  }
  return false;
}

std::string Factor(const std::string& text) {
  return NeedsParens(text) ? "(" + text + ")" : text;
}

}  // namespace

Count::Count(int64_t constant) : constant_(constant) {}

Count Count::Python(const std::string& text) {
  if (IsIntegerLiteral(text)) return Count(std::stoll(text));
  Count count;
  count.terms_.push_back(Term{{text}, 1});
  return count;
}

bool Count::is_constant() const { return terms_.empty(); }

int64_t Count::constant() const { return constant_; }

double Count::StaticOr(double fallback) const {
  return is_constant() ? static_cast<double>(constant_) : fallback;
}

std::string Count::ToPython() const {
  std::string text;
  auto append = [&](const std::vector<std::string>& atoms, int64_t coeff) {
    const bool negative = coeff < 0;
    // -INT64_MIN does not exist: a saturated count prints the other bound.
    const int64_t magnitude =
        !negative ? coeff
                  : (coeff == std::numeric_limits<int64_t>::min()
                         ? std::numeric_limits<int64_t>::max()
                         : -coeff);
    std::string term;
    if (magnitude != 1 || atoms.empty()) term = fmt::format("{}", magnitude);
    // A lone atom after `+` needs no parentheses (`a % 8` binds tighter).
    const bool alone = atoms.size() == 1 && term.empty() && !negative;
    for (const std::string& atom : atoms) {
      term += (term.empty() ? "" : " * ") + (alone ? atom : Factor(atom));
    }
    if (text.empty()) {
      text = (negative ? "-" : "") + term;
    } else {
      text += (negative ? " - " : " + ") + term;
    }
  };
  for (const Term& term : terms_) append(term.atoms, term.coefficient);
  if (constant_ != 0) append({}, constant_);
  return text.empty() ? "0" : text;
}

Count& Count::operator+=(const Count& other) {
  constant_ = Add(constant_, other.constant_);
  if (other.terms_.empty()) return *this;
  std::vector<Term> merged;
  merged.reserve(terms_.size() + other.terms_.size());
  size_t i = 0, j = 0;
  while (i < terms_.size() || j < other.terms_.size()) {
    if (j == other.terms_.size() ||
        (i < terms_.size() && terms_[i].atoms < other.terms_[j].atoms)) {
      merged.push_back(std::move(terms_[i++]));
    } else if (i == terms_.size() || other.terms_[j].atoms < terms_[i].atoms) {
      merged.push_back(other.terms_[j++]);
    } else {
      const int64_t sum =
          Add(terms_[i].coefficient, other.terms_[j].coefficient);
      if (sum != 0) merged.push_back(Term{std::move(terms_[i].atoms), sum});
      ++i;
      ++j;
    }
  }
  terms_ = std::move(merged);
  return *this;
}

Count& Count::operator-=(const Count& other) {
  return *this += other * Count(-1);
}

Count& Count::operator*=(const Count& other) {
  if (other.terms_.empty()) {
    // Scaling by a constant: the common case, in place.
    constant_ = Multiply(constant_, other.constant_);
    if (other.constant_ == 0) terms_.clear();
    for (Term& term : terms_) {
      term.coefficient = Multiply(term.coefficient, other.constant_);
    }
    return *this;
  }
  if (terms_.empty()) {
    const int64_t scale = constant_;
    *this = other;
    return *this *= Count(scale);
  }
  Count product(Multiply(constant_, other.constant_));
  auto add = [&](std::vector<std::string> atoms, int64_t coefficient) {
    std::sort(atoms.begin(), atoms.end());
    Count term;
    term.terms_.push_back(Term{std::move(atoms), coefficient});
    product += term;
  };
  for (const Term& a : terms_) {
    if (other.constant_ != 0)
      add(a.atoms, Multiply(a.coefficient, other.constant_));
    for (const Term& b : other.terms_) {
      std::vector<std::string> atoms = a.atoms;
      atoms.insert(atoms.end(), b.atoms.begin(), b.atoms.end());
      add(std::move(atoms), Multiply(a.coefficient, b.coefficient));
    }
  }
  if (constant_ != 0) {
    for (const Term& b : other.terms_) {
      add(b.atoms, Multiply(constant_, b.coefficient));
    }
  }
  *this = std::move(product);
  return *this;
}

std::optional<Count> Count::DividedExactly(int64_t b) const {
  if (constant_ % b != 0) return std::nullopt;
  Count quotient = *this;
  quotient.constant_ /= b;
  for (Term& term : quotient.terms_) {
    if (term.coefficient % b != 0) return std::nullopt;
    term.coefficient /= b;
  }
  return quotient;
}

Count CeilDiv(const Count& a, int64_t b) {
  if (b <= 1) return a;
  if (a.is_constant()) return Count(Add(a.constant(), b - 1) / b);
  if (std::optional<Count> exact = a.DividedExactly(b)) return *exact;
  return Count::Python(fmt::format("pl.cdiv({}, {})", a.ToPython(), b));
}

Count FloorDiv(const Count& a, int64_t b) {
  if (b <= 1) return a;
  if (a.is_constant()) return Count(a.constant() / b);
  if (std::optional<Count> exact = a.DividedExactly(b)) return *exact;
  return Count::Python(fmt::format("{} // {}", Factor(a.ToPython()), b));
}

Count Mod(const Count& a, int64_t b) {
  if (b <= 1) return 0;
  if (a.is_constant()) return Count(a.constant() % b);
  if (a.DividedExactly(b)) return 0;
  return Count::Python(fmt::format("{} % {}", Factor(a.ToPython()), b));
}

Count RoundUp(const Count& a, int64_t b) {
  if (b <= 1) return a;
  return CeilDiv(a, b) * Count(b);
}

}  // namespace tessera::pallas
