// Owned by the collective command's module; placeholder until it lands.
namespace topoplan::report {}
