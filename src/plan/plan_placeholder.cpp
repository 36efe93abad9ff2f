namespace topoplan {}
