// op_graph.hpp — the Boost.Graph type that holds one stage's operator DAG, and the container
// selector that makes it cheap to build. A search builds plans by the hundred thousand: most ops
// have one or two out-edges, so each op's edge list keeps two inline (boost small_vector) instead
// of allocating, the graph is directed (nothing walks edges backwards; a bidirectional graph also
// keeps an in-edge list per op and a global edge list) and vertices live in a vector.
#pragma once
#include <boost/container/small_vector.hpp>
// GCC 12 flags the boost::optional inside a directed graph's edge iterator (edges(), copies,
// graphviz) as maybe-uninitialised at -O2+, a known false positive. Headers that instantiate it
// are included between these two (here, and graphviz where a graph is drawn).
#if defined(__GNUC__) && !defined(__clang__)
#define TRNSIM_BOOST_GRAPH_HEADERS_BEGIN \
  _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wmaybe-uninitialized\"")
#define TRNSIM_BOOST_GRAPH_HEADERS_END _Pragma("GCC diagnostic pop")
#else
#define TRNSIM_BOOST_GRAPH_HEADERS_BEGIN
#define TRNSIM_BOOST_GRAPH_HEADERS_END
#endif
TRNSIM_BOOST_GRAPH_HEADERS_BEGIN
#include <boost/graph/adjacency_list.hpp>
#include <boost/pending/container_traits.hpp>
TRNSIM_BOOST_GRAPH_HEADERS_END

#include "trnsim/op.hpp"

namespace trnsim {
struct smallvec2S {};  // out-edge list selector: boost::container::small_vector<edge, 2>
}  // namespace trnsim

namespace boost {
template <class ValueType>
struct container_gen<trnsim::smallvec2S, ValueType> {
  using type = boost::container::small_vector<ValueType, 2>;
};
template <>
struct parallel_edge_traits<trnsim::smallvec2S> {
  using type = allow_parallel_edge_tag;
};
namespace graph_detail {
template <class T, std::size_t N, class A, class O>
struct container_traits<boost::container::small_vector<T, N, A, O>> {
  using category = vector_tag;
  using iterator_stability = unstable_tag;
};
}  // namespace graph_detail
// Found by argument-dependent lookup from Boost.Graph's push / erase helpers.
namespace container {
template <class T, std::size_t N, class A, class O>
graph_detail::vector_tag container_category(const small_vector<T, N, A, O>&) {
  return graph_detail::vector_tag();
}
template <class T, std::size_t N, class A, class O>
graph_detail::unstable_tag iterator_stability(const small_vector<T, N, A, O>&) {
  return graph_detail::unstable_tag();
}
}  // namespace container
}  // namespace boost

namespace trnsim {
using OpGraph = boost::adjacency_list<smallvec2S, boost::vecS, boost::directedS, Op>;
using OpVertex = OpGraph::vertex_descriptor;
}  // namespace trnsim
