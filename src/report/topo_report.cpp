// Owned by the topo command's module; placeholder until it lands.
namespace topoplan::report {}
