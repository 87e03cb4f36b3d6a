// op_factory.cpp — accounting rules for each op kind (see op_factory.hpp).
#include "op_factory.hpp"

namespace trnsim::ops {

Op gemm(const std::string& label, int64_t batch, int64_t m, int64_t k, int64_t n, DType dt) {
  Op o;
  o.kind = OpKind::Gemm;
  o.engine = Engine::Tensor;
  o.label = label;
  o.dtype = dt;
  o.batch = batch;
  o.m = m;
  o.k = k;
  o.n = n;
  const double b = dtype_bytes(dt);
  o.flops = Flops(2.0 * batch * m * k * n);
  o.bytes_read = Bytes(b * batch * (m * k + k * n));
  o.bytes_written = Bytes(b * batch * m * n);
  return o;
}

Op vector_op(OpKind kind, const std::string& label, int64_t elements, int64_t row, int inputs, int passes,
             bool transcendental, double flops_per_element, DType dt) {
  Op o;
  o.kind = kind;
  o.engine = (passes == 0 && transcendental) ? Engine::Scalar : Engine::Vector;
  o.label = label;
  o.dtype = dt;
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

Op embedding(const std::string& label, int64_t elements, DType dt) {
  Op o;
  o.kind = OpKind::Embedding;
  o.engine = Engine::Dma;
  o.label = label;
  o.dtype = dt;
  o.elements = elements;
  o.bytes_read = Bytes(dtype_bytes(dt) * static_cast<double>(elements));
  o.bytes_written = o.bytes_read;
  return o;
}

Op optimizer(const std::string& label, int64_t params, int state_bytes_per_param, int param_bytes, DType dt) {
  Op o;
  o.kind = OpKind::Optimizer;
  o.engine = Engine::Vector;
  o.label = label;
  o.dtype = dt;
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

Op collective(OpKind kind, const std::string& label, Group g, int group_size, Bytes bytes) {
  Op o;
  o.kind = kind;
  o.engine = Engine::Collective;
  o.label = label;
  o.group = g;
  o.group_size = group_size;
  o.comm_bytes = bytes;
  return o;
}

}  // namespace trnsim::ops
