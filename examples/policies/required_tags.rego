# Every taggable resource this plan creates or changes carries the tags the organization requires.
package terraform.policies.required_tags

import rego.v1

required := {"owner", "cost-center"}

tag_keys(after) := {key | some key, _ in after.tags} if is_object(after.tags)

tag_keys(after) := set() if not is_object(after.tags)

deny contains msg if {
	some rc in input.plan.resource_changes
	some action in rc.change.actions
	action in {"create", "update"}
	# Taggable: the provider's schema has a tags attribute (null when none were set).
	"tags" in object.keys(rc.change.after)
	missing := required - tag_keys(rc.change.after)
	count(missing) > 0
	msg := sprintf("%s is missing the tags %v", [rc.address, sort([m | some m in missing])])
}
