# Resources that hold data are never destroyed (deleted or replaced) by a run that is not a destroy run.
package terraform.policies.no_destroy_protected

import rego.v1

protected_types := {
	"aws_db_instance", "aws_rds_cluster", "aws_s3_bucket", "aws_dynamodb_table", "aws_efs_file_system",
	"google_sql_database_instance", "google_storage_bucket", "azurerm_storage_account", "azurerm_mssql_database",
}

deny contains msg if {
	not input.run.is_destroy
	some rc in input.plan.resource_changes
	rc.type in protected_types
	"delete" in rc.change.actions
	verb := {true: "replaced", false: "deleted"}["create" in rc.change.actions]
	msg := sprintf("%s (%s) would be %s", [rc.address, rc.type, verb])
}
