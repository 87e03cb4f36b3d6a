// op_factory.cpp — accounting rules for each op kind (see op_factory.hpp).
#include "op_factory.hpp"

namespace trnsim::ops {

Op gemm(std::string label, int64_t batch, int64_t m, int64_t k, int64_t n, DType dt) {
  Op o;
  o.kind = OpKind::Gemm;
  o.engine = Engine::Tensor;
  o.label = std::move(label);
  o.dtype = dt;
  // A low-precision GEMM accumulates in FP32 and writes BF16 (TE / torchao / cuBLASLt FP8 GEMMs).
  o.out_dtype = is_low_precision(dt) ? DType::BF16 : dt;
  o.batch = batch;
  o.m = m;
  o.k = k;
  o.n = n;
  const double b = dtype_bytes(dt);
  o.flops = Flops(2.0 * batch * m * k * n);
  o.bytes_read = Bytes(b * batch * (m * k + k * n));
  o.bytes_written = Bytes(dtype_bytes(o.out_dtype) * batch * m * n);
  return o;
}

Op vector_op(OpKind kind, std::string label, int64_t elements, int64_t row, int inputs, int passes,
             bool transcendental, double flops_per_element, DType dt) {
  Op o;
  o.kind = kind;
  o.engine = (passes == 0 && transcendental) ? Engine::Scalar : Engine::Vector;
  o.label = std::move(label);
  o.dtype = o.out_dtype = dt;
  o.elements = elements;
  o.row = row;
  o.inputs = inputs;
  o.passes = passes;
  o.transcendental = transcendental;
  const double b = dtype_bytes(dt);
  o.flops = Flops(flops_per_element * static_cast<double>(elements));
  o.bytes_read = Bytes(b * elements * inputs);
  o.bytes_written = Bytes(b * elements);
  return o;
}

Op embedding(std::string label, int64_t elements, DType dt) {
  Op o;
  o.kind = OpKind::Embedding;
  o.engine = Engine::Dma;
  o.label = std::move(label);
  o.dtype = o.out_dtype = dt;
  o.elements = elements;
  o.bytes_read = Bytes(dtype_bytes(dt) * static_cast<double>(elements));
  o.bytes_written = o.bytes_read;
  return o;
}

Op optimizer(std::string label, int64_t params, int state_bytes_per_param, int param_bytes, DType dt) {
  Op o;
  o.kind = OpKind::Optimizer;
  o.engine = Engine::Vector;
  o.label = std::move(label);
  o.dtype = o.out_dtype = dt;
  o.elements = params;
  o.inputs = 3;        // param, grad, moments
  o.passes = 6;        // m, v updates, bias corrections, update direction, decay+apply
  o.transcendental = true;  // sqrt
  o.flops = Flops(12.0 * static_cast<double>(params));
  // read param + grad + states, write param + states
  o.bytes_read = Bytes(static_cast<double>(params) * (2.0 * param_bytes + state_bytes_per_param));
  o.bytes_written = Bytes(static_cast<double>(params) * (param_bytes + state_bytes_per_param));
  return o;
}

Op quantize(std::string label, int64_t elements, int passes, int copies, DType to) {
  Op o = vector_op(OpKind::Elementwise, std::move(label), elements, 0, 1, passes, false, 3, DType::BF16);
  o.out_dtype = to;
  o.bytes_read = Bytes(dtype_bytes(DType::BF16) * static_cast<double>(elements) * passes);
  o.bytes_written = Bytes(dtype_bytes(to) * static_cast<double>(elements) * copies);
  return o;
}

Op collective(OpKind kind, std::string label, Group g, int group_size, Bytes bytes) {
  Op o;
  o.kind = kind;
  o.engine = Engine::Collective;
  o.label = std::move(label);
  o.group = g;
  o.group_size = group_size;
  o.comm_bytes = bytes;
  return o;
}

}  // namespace trnsim::ops
