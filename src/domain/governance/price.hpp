#pragma once
// A model's price in USD per million tokens, from [prices."provider/model"].

namespace agentgate {

struct Price {
  double input_per_mtok = 0;
  double output_per_mtok = 0;
};

}  // namespace agentgate
