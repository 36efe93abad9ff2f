// Owned by the plan command's module; placeholder until it lands.
namespace topoplan::report {}
