// Boost without exceptions (the embedded profile defines BOOST_NO_EXCEPTIONS):
// Boost then calls these instead of throwing. Boost.Graph reaches them only
// from checks the core never trips (dijkstra's negative-edge check,
// bad_graph, bad property lookups in dynamic_properties); the CSR graph and
// the searches the engines use never throw. Reaching one is a bug, so it
// stops the process like a failed assert.
#include <boost/throw_exception.hpp>

#ifdef BOOST_NO_EXCEPTIONS

#include <cassert>
#include <cstdlib>
#include <exception>

namespace boost {

void throw_exception(const std::exception& e) {
  (void)e;
  assert(false && "boost::throw_exception without exceptions");
  std::abort();
}

void throw_exception(const std::exception& e, const boost::source_location& location) {
  (void)location;
  throw_exception(e);
}

}  // namespace boost

#endif
