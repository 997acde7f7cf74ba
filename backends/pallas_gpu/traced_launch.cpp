#include "traced_launch.h"

#include <optional>
#include <set>
#include <vector>

#include "fmt/format.h"
#include "kernel_plan.h"

namespace tessera::pallas {

std::string PowerOfTwoText(const std::string& size) {
  return fmt::format("pl.next_power_of_2({})", size);
}

namespace {

// A Python string literal of `text`.
std::string PythonString(const std::string& text) {
  std::string literal = "\"";
  for (char c : text) {
    if (c == '\\' || c == '"') literal += '\\';
    literal += c;
  }
  return literal + "\"";
}

// Each dim of `type` as the kernel holds it when traced: the power of two
// of a static size, or of the host's value of a call-time one; nullopt when
// the host has no value for it.
std::optional<std::vector<std::string>> TracedDims(const Type& type,
                                                   const HostBindings& host,
                                                   int64_t* static_product) {
  std::vector<std::string> dims;
  for (const Dim& dim : type.shape) {
    if (dim.is_static()) {
      const int64_t size = PowerOfTwoAtLeast(dim.size);
      if (static_product != nullptr) *static_product *= size;
      dims.push_back(fmt::format("{}", size));
      continue;
    }
    auto it = host.symbol_values.find(dim.symbol);
    if (it == host.symbol_values.end()) return std::nullopt;
    dims.push_back(PowerOfTwoText(it->second));
  }
  return dims;
}

// The traced tiles as a tuple of (label, shape) pairs.
std::optional<std::string> TilesText(const GpuLaunch& launch,
                                     const HostBindings& host) {
  std::string tiles;
  for (const TracedTile& tile : launch.traced_tiles) {
    auto dims = TracedDims(*tile.type, host, nullptr);
    if (!dims) return std::nullopt;
    std::string shape;
    for (const std::string& dim : *dims) {
      shape += (shape.empty() ? "" : ", ") + dim;
    }
    if (dims->size() == 1) shape += ",";
    tiles += fmt::format("{}({}, ({}))", tiles.empty() ? "" : ", ",
                         PythonString(tile.label), shape);
  }
  return "(" + tiles + (launch.traced_tiles.size() == 1 ? ",)" : ")");
}

// A size as a Python int expression in its unit:
// "16384 + 256 * pl.next_power_of_2(n)" (bytes).
std::optional<std::string> SizeText(const TracedSize& size,
                                    const HostBindings& host) {
  std::string text = size.fixed > 0 || size.traced.empty()
                         ? fmt::format("{}", size.fixed)
                         : "";
  for (const Type* type : size.traced) {
    int64_t coefficient =
        size.unit == SizeUnit::kElements ? 1 : DTypeBytes(type->dtype);
    auto dims = TracedDims(*type, host, &coefficient);
    if (!dims) return std::nullopt;
    std::string term = fmt::format("{}", coefficient);
    for (const std::string& dim : *dims) {
      if (dim.starts_with("pl.")) term += " * " + dim;
    }
    // 32-bit registers: four bytes each, the last one partly used.
    if (size.unit == SizeUnit::kWords) term = "(" + term + " + 3) // 4";
    text += (text.empty() ? "" : " + ") + term;
  }
  return text;
}

// The largest of `alternatives` ("0" for none).
std::optional<std::string> LargestText(
    const std::vector<TracedSize>& alternatives, const HostBindings& host) {
  std::vector<std::string> texts;
  std::set<std::string> seen;
  for (const TracedSize& bytes : alternatives) {
    auto text = SizeText(bytes, host);
    if (!text) return std::nullopt;
    // Zero (a loop with no carried tiles) never is the largest.
    if (*text != "0" && seen.insert(*text).second) texts.push_back(*text);
  }
  if (texts.empty()) return std::string("0");
  if (texts.size() == 1) return texts[0];
  std::string args;
  for (const std::string& text : texts) {
    args += (args.empty() ? "" : ", ") + text;
  }
  return "max(" + args + ")";
}

// The live sets as a tuple of (what, count, per thread) triples.
std::optional<std::string> LiveSetsText(const GpuLaunch& launch,
                                        const HostBindings& host) {
  std::string sets;
  for (const TracedLiveSet& set : launch.live_sets) {
    auto count = LargestText(set.alternatives, host);
    if (!count) return std::nullopt;
    sets += fmt::format("{}({}, {}, {})", sets.empty() ? "" : ", ",
                        PythonString(set.what), *count, set.per_thread);
  }
  return "(" + sets + (launch.live_sets.size() == 1 ? ",)" : ")");
}

// The keyword arguments of _triton_num_stages before `stages`, a line each.
std::optional<std::vector<std::string>> SharedText(
    const TracedSharedMemory& shared, const HostBindings& host) {
  auto streamed = SizeText(shared.streamed, host);
  auto converted = SizeText(shared.converted, host);
  auto resident = LargestText(shared.resident, host);
  auto unpipelined = LargestText(shared.unpipelined, host);
  if (!streamed || !converted || !resident || !unpipelined) return std::nullopt;
  return std::vector<std::string>{
      "streamed=" + *streamed + ",", "converted=" + *converted + ",",
      "resident=" + *resident + ",", "unpipelined=" + *unpipelined + ","};
}

}  // namespace

void WriteTritonCompilerParams(const GpuLaunch& launch, const KernelPlan& plan,
                               const HostBindings& host,
                               const std::optional<std::string>& where,
                               bool stages_requested,
                               TracedLaunchHelpers& helpers, PyLines& out) {
  std::optional<std::string> tiles, live;
  if (where && (!launch.traced_tiles.empty() || !launch.live_sets.empty())) {
    tiles = TilesText(launch, host);
    live = LiveSetsText(launch, host);
    if (!live) tiles.reset();
  }
  std::optional<std::vector<std::string>> shared;
  if (where && launch.traced_shared) {
    shared = SharedText(*launch.traced_shared, host);
  }
  if (!tiles && !shared) {
    out.Line(
        fmt::format("compiler_params=pltriton.CompilerParams(num_warps={}, "
                    "num_stages={}),",
                    launch.num_warps, launch.num_stages));
    return;
  }
  const std::string located =
      fmt::format("where={}, kernel={}", PythonString(*where),
                  PythonString(plan.host->name));
  out.Line("compiler_params=pltriton.CompilerParams(");
  out.Indent();
  if (tiles) {
    helpers.num_warps_used = true;
    out.Line(fmt::format("num_warps={}(", helpers.num_warps_fn));
    out.Indent();
    out.Line("tiles=" + *tiles + ",");
    out.Line("live=" + *live + ",");
    out.Line(fmt::format("tile_warps={}, least={}, most={},", launch.tile_warps,
                         launch.least_warps, launch.max_warps));
    out.Line(located + "),");
    out.Dedent();
  } else {
    out.Line(fmt::format("num_warps={},", launch.num_warps));
  }
  if (shared) {
    // The static choice counted none of the traced bytes: start again from
    // the default (or the requested) stages.
    helpers.num_stages_used = true;
    out.Line(fmt::format("num_stages={}(", helpers.num_stages_fn));
    out.Indent();
    for (const std::string& line : *shared) out.Line(line);
    out.Line(
        fmt::format("pipelined={}, stages={}, fixed={},",
                    launch.traced_shared->pipelined ? "True" : "False",
                    stages_requested ? launch.num_stages : kGpuDefaultStages,
                    stages_requested ? "True" : "False"));
    out.Line(located + "),");
    out.Dedent();
  } else {
    out.Line(fmt::format("num_stages={},", launch.num_stages));
  }
  out.Dedent();
  out.Line("),");
}

std::string TracedLaunchHelperSource(const TracedLaunchHelpers& helpers) {
  // Both end with the compile-time policy's advice (gpu_policy.cpp).
  const std::string advice =
      "choose smaller blocks (block_sizes in [kernels.{kernel}] of the "
      "config, or the kernel's helion.Config)";
  std::string source;
  if (helpers.num_warps_used) {
    source += fmt::format(
        R"py(

def {fn}(tiles, live, tile_warps, least, most, where, kernel):
    # pallas-gpu's launch policy for values whose size is known only when traced
    # (whole dims given at call time): enough warps that every tile holds at
    # most {per} values per thread (`tile_warps`: the static tiles' need), then
    # the first live set (what, count, per thread) that needs more decides; at
    # least `least`, at most `most` warps per program (0: num_warps was given,
    # `least`, and only Triton's limit per tensor holds). Past the limits it
    # raises the located error the compile-time policy gives.
    def warps_for(count, per_thread):
        return 1 << (-(-count // (32 * per_thread)) - 1).bit_length()

    needed = tile_warps
    for tile, shape in tiles:
        elements = math.prod(shape)
        if elements > {max_elements}:
            limit = "more than Triton's {max_elements} elements per tensor"
        elif most and warps_for(elements, {per}) > most:
            limit = (f"which needs {{warps_for(elements, {per})}} warps to stay within {per} values "
                     f"per thread (at most {{most}} per program)")
        else:
            needed = max(needed, warps_for(elements, {per}))
            continue
        size = " x ".join(map(str, shape))
        raise ValueError(
            f"{{where}}: error: the tile {{tile}} is {{size}} = {{elements}} elements when traced "
            f"(whole dims rounded up to a power of two), {{limit}}; {advice}")
    for what, count, per_thread in live:
        if most and warps_for(count, per_thread) > needed:
            needed = warps_for(count, per_thread)
            if needed > most:
                raise ValueError(
                    f"{{where}}: error: {{what.format(count)}} when traced, which needs {{needed}} "
                    f"warps to stay within {{per_thread}} per thread (at most {{most}} per program "
                    f"with a dot); {advice}")
            break
    return max(least, needed) if most else least
)py",
        fmt::arg("fn", helpers.num_warps_fn),
        fmt::arg("per", kGpuValuesPerThread),
        fmt::arg("max_elements", kTritonMaxTensorElements),
        fmt::arg("advice", advice));
  }
  if (helpers.num_stages_used) {
    source += fmt::format(
        R"py(

def {fn}(streamed, converted, resident, unpipelined, pipelined, stages, fixed, where, kernel):
    # pallas-gpu's launch policy for dots whose operands have a dim known only
    # when traced: pipelined, one copy of the streamed operands per stage (of
    # the converted ones, one fewer) next to the largest resident buffer; else,
    # or with one stage, the unpipelined buffers. The default `stages` is
    # lowered until they fit {limit} bytes (`fixed`: num_stages was given).
    def shared(count):
        if not pipelined or count <= 1:
            return unpipelined
        return streamed * count + converted * (count - 1) + resident

    while not fixed and stages > 1 and shared(stages) > {limit}:
        stages -= 1
    if shared(stages) > {limit}:
        raise ValueError(
            f"{{where}}: error: the dots need {{shared(stages) / 1024:.1f}} KiB of shared memory "
            f"with num_stages {{stages}} ({{streamed / 1024:.1f}} KiB of operands per stage) when "
            f"traced: more than the GPU's {limit_kib:.1f} KiB per program; {advice}"
            + (" or fewer stages" if fixed and stages > 1 else ""))
    return stages
)py",
        fmt::arg("fn", helpers.num_stages_fn),
        fmt::arg("limit", kGpuSharedMemoryBytes),
        fmt::arg("limit_kib",
                 static_cast<double>(kGpuSharedMemoryBytes) / 1024),
        fmt::arg("advice", advice));
  }
  return source;
}

}  // namespace tessera::pallas
