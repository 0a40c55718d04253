# Security groups and firewall rules this plan creates or changes must not let the whole internet in.
package terraform.policies.no_public_ingress

import rego.v1

public_cidrs := {"0.0.0.0/0", "::/0"}

changing(rc) if {
	some action in rc.change.actions
	action in {"create", "update"}
}

# aws_security_group with an inline ingress block open to the world
deny contains msg if {
	some rc in input.plan.resource_changes
	rc.type == "aws_security_group"
	changing(rc)
	some rule in rc.change.after.ingress
	some cidr in array.concat(object.get(rule, "cidr_blocks", []), object.get(rule, "ipv6_cidr_blocks", []))
	cidr in public_cidrs
	msg := sprintf("%s allows ingress from %s on ports %v-%v", [rc.address, cidr, rule.from_port, rule.to_port])
}

# aws_security_group_rule / aws_vpc_security_group_ingress_rule open to the world
deny contains msg if {
	some rc in input.plan.resource_changes
	rc.type in {"aws_security_group_rule", "aws_vpc_security_group_ingress_rule"}
	changing(rc)
	object.get(rc.change.after, "type", "ingress") == "ingress"
	some cidr in array.concat(object.get(rc.change.after, "cidr_blocks", []), [object.get(rc.change.after, "cidr_ipv4", "")])
	cidr in public_cidrs
	msg := sprintf("%s allows ingress from %s", [rc.address, cidr])
}
