// op_factory.hpp — makes accounted Ops: FLOPs, bytes read/written and engine class are
// filled in one place, so every builder counts the same way.
#pragma once
#include <string>

#include "trnsim/op.hpp"

namespace trnsim::ops {

Op gemm(std::string label, int64_t batch, int64_t m, int64_t k, int64_t n, DType dt);
// Vector-class op over `elements` values: `passes` vector passes (+1 scalar pass when
// transcendental), `inputs` operands per element, `flops_per_element` arithmetic.
Op vector_op(OpKind kind, std::string label, int64_t elements, int64_t row, int inputs, int passes,
             bool transcendental, double flops_per_element, DType dt);
Op embedding(std::string label, int64_t elements, DType dt);
Op optimizer(std::string label, int64_t params, int state_bytes_per_param, int param_bytes, DType dt);
// Cast of `elements` BF16 values to a low-precision type: `passes` reads of the input (an
// amax pass before the cast where the scale needs the whole tensor), `copies` outputs (the
// row-wise operand and its transposed / column-wise twin for the other GEMM that uses it).
Op quantize(std::string label, int64_t elements, int passes, int copies, DType to);
Op collective(OpKind kind, std::string label, Group g, int group_size, Bytes bytes);

}  // namespace trnsim::ops
