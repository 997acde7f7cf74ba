// Checks option values written in a config or on the command line against
// the OptionSpecs a plugin declared, and produces the resolved OptionMap the
// plugin receives (every declared option present, defaults filled in).
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "driver/pipeline_config.h"
#include "tessera/diagnostics.h"
#include "tessera/options.h"

namespace tessera {

// `owner` names the plugin entry in messages, e.g. "pass 'outline'".
// Unknown keys (with "did you mean"), wrong types and values outside the
// declared choices are reported at the key or value; nullopt when any was.
// Later entries of `given` override earlier ones (command line over config).
std::optional<OptionMap> ResolveOptions(const std::vector<OptionSpec>& specs,
                                        const std::vector<ConfigOption>& given,
                                        std::string_view owner,
                                        DiagnosticEngine& diagnostics);

// An option map of `given` as written, for a plugin whose declarations are
// unknown because it is not loaded (and not needed by this command).
OptionMap UncheckedOptions(const std::vector<ConfigOption>& given);

}  // namespace tessera
