// The input files of `run` and `bench`: -i NAME=FILE.npy, and .npz files giving inputs by key
// (-i FILE.npz or --inputs FILE.npz).
#pragma once

#include <string>
#include <vector>

#include <aotrt/model.h>

namespace aotrt_cli {

struct GivenInput {
  size_t index;         // the model input
  std::string source;   // "file.npy" or "inputs.npz:key"
  aotrt::NDArray array;
};

// Read every file. An .npz key names an input ('input:0' = 'input_0'), or is numpy's positional
// arr_<i> for input i. Throws UsageError for a malformed spec, aotrt::Error for an unreadable
// file or a name that is no input of `ex` (the message lists the inputs).
std::vector<GivenInput> ReadInputFiles(const std::vector<std::string>& specs, const aotrt::Executor& ex);

}  // namespace aotrt_cli
