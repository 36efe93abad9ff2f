// Owned by the roofline command's module; placeholder until it lands.
namespace topoplan::report {}
