# A configuration to try the gate with (README.md, "A five-minute tour"): terraform_data needs no provider
# download, so terraform and tofu plan and apply it offline. Run it once and it creates the resource; change
# `release` (`TF_VAR_release=two`) and the next plan replaces it, which the example run task fails, so that
# run waits for a person's override. test/process/pipeline-cli.test.ts runs this file through gate.sh.
variable "release" {
  type    = string
  default = "one"
}

resource "terraform_data" "example" {
  input            = "gated"
  triggers_replace = var.release
}
