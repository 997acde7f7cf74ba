#include "driver/cost_report.h"

#include <cstdint>
#include <limits>
#include <string>

#include "fmt/format.h"

namespace tessera {
namespace {

// A count as the generated pl.CostEstimate carries it: an int64, saturated
// (2^63 as a double is one past the largest).
std::string CallCount(double count) {
  constexpr double kPastLargest = 9223372036854775808.0;
  if (count >= kPastLargest) {
    return fmt::format("{}", std::numeric_limits<int64_t>::max());
  }
  return fmt::format("{:.0f}", count);
}

std::string Time(double seconds) {
  if (seconds >= 1e-3) return fmt::format("{:.3f} ms", seconds * 1e3);
  return fmt::format("{:.2f} us", seconds * 1e6);
}

std::string Count(double value) {
  if (value >= 1e9) return fmt::format("{:.2f} G", value / 1e9);
  if (value >= 1e6) return fmt::format("{:.2f} M", value / 1e6);
  if (value >= 1e3) return fmt::format("{:.1f} K", value / 1e3);
  return fmt::format("{:.0f}", value);
}

std::string Mib(int64_t bytes) {
  return fmt::format("{:.2f} MiB", static_cast<double>(bytes) / (1 << 20));
}

std::string JsonString(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", static_cast<int>(c));
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// Numbers as JSON accepts them (integers without an exponent when exact).
std::string JsonNumber(double value) {
  if (value == static_cast<double>(static_cast<int64_t>(value)) &&
      value < 9e15 && value > -9e15) {
    return fmt::format("{}", static_cast<int64_t>(value));
  }
  return fmt::format("{:.6g}", value);
}

}  // namespace

std::string FormatEstimateTable(const std::vector<KernelEstimate>& kernels) {
  std::string out;
  for (const KernelEstimate& kernel : kernels) {
    out += fmt::format("kernel {} (launcher {}, {}): modeled time {}\n",
                       kernel.kernel, kernel.launcher,
                       kernel.target_description.empty()
                           ? kernel.target
                           : kernel.target_description,
                       Time(kernel.time_s));
    out += fmt::format(
        "  {:<28} {:>7} {:>7} {:>10} {:>10} {:>10} {:>11} "
        "{:<14} {:>9}\n",
        "stage", "steps", "runs", "bytes", "flops", "transc.", "time", "bound",
        "roofline");
    for (const StageEstimate& stage : kernel.stages) {
      out += fmt::format(
          "  {:<28} {:>7} {:>7} {:>10} {:>10} {:>10} {:>11} {:<14} {:>8.1f}%\n",
          stage.name, stage.steps, stage.runs, Count(stage.bytes),
          Count(stage.flops), Count(stage.transcendentals), Time(stage.time_s),
          stage.bound, stage.roofline_fraction * 100);
    }
    out += fmt::format(
        "  {} peak {} of {} scoped limit ({} capacity)\n",
        kernel.memory_name.empty() ? "on-chip memory" : kernel.memory_name,
        Mib(kernel.vmem_peak_bytes), Mib(kernel.vmem_limit_bytes),
        Mib(kernel.vmem_capacity_bytes));
    out += fmt::format(
        "  pl.CostEstimate: flops={} transcendentals={} bytes_accessed={}\n",
        CallCount(kernel.flops), CallCount(kernel.transcendentals),
        CallCount(kernel.bytes_accessed));
    for (const std::string& note : kernel.notes) {
      out += "  note: " + note + "\n";
    }
  }
  return out;
}

std::string FormatEstimateJson(const std::vector<KernelEstimate>& kernels) {
  std::string out = "{\"kernels\": [";
  for (size_t k = 0; k < kernels.size(); ++k) {
    const KernelEstimate& kernel = kernels[k];
    out += k ? ",\n  {" : "\n  {";
    out += fmt::format(
        "\"kernel\": {}, \"target\": {}, \"launcher\": {}, \"time_s\": {}, "
        "\"flops\": {}, \"transcendentals\": {}, \"bytes_accessed\": {}, "
        "\"vmem_peak_bytes\": {}, \"vmem_limit_bytes\": {}, "
        "\"vmem_capacity_bytes\": {},\n   \"stages\": [",
        JsonString(kernel.kernel), JsonString(kernel.target),
        JsonString(kernel.launcher), JsonNumber(kernel.time_s),
        JsonNumber(kernel.flops), JsonNumber(kernel.transcendentals),
        JsonNumber(kernel.bytes_accessed), kernel.vmem_peak_bytes,
        kernel.vmem_limit_bytes, kernel.vmem_capacity_bytes);
    for (size_t s = 0; s < kernel.stages.size(); ++s) {
      const StageEstimate& stage = kernel.stages[s];
      out += s ? ",\n    {" : "\n    {";
      out += fmt::format(
          "\"name\": {}, \"kind\": {}, \"steps\": {}, \"runs\": {}, "
          "\"bytes\": {}, \"flops\": {}, \"transcendentals\": {}, "
          "\"compute_s\": {}, \"memory_s\": {}, \"overhead_s\": {}, "
          "\"exposed_memory_s\": {}, \"time_s\": {}, \"bound\": {}, "
          "\"roofline_fraction\": {}}}",
          JsonString(stage.name), JsonString(stage.kind), stage.steps,
          stage.runs, JsonNumber(stage.bytes), JsonNumber(stage.flops),
          JsonNumber(stage.transcendentals), JsonNumber(stage.compute_s),
          JsonNumber(stage.memory_s), JsonNumber(stage.overhead_s),
          JsonNumber(stage.exposed_memory_s), JsonNumber(stage.time_s),
          JsonString(stage.bound), JsonNumber(stage.roofline_fraction));
    }
    out += "],\n   \"notes\": [";
    for (size_t n = 0; n < kernel.notes.size(); ++n) {
      out += (n ? ", " : "") + JsonString(kernel.notes[n]);
    }
    out += "]}";
  }
  return out + "\n]}\n";
}

std::string FormatModeledTime(const std::vector<KernelEstimate>& kernels) {
  std::string out = "modeled kernel time:";
  for (size_t k = 0; k < kernels.size(); ++k) {
    out += fmt::format("{} {} {} ({})", k ? "," : "", kernels[k].kernel,
                       Time(kernels[k].time_s), kernels[k].target);
  }
  return out + "\n";
}

}  // namespace tessera
