// Owned by the model command's module; placeholder until it lands.
namespace topoplan::report {}
