//go:build tools

// Pins the AWS Lambda Runtime Interface Emulator (the Lambda e2e tests run the built
// zip under it); built by testbed/lambda_runtime.py.
package tools

import _ "github.com/aws/aws-lambda-runtime-interface-emulator/cmd/aws-lambda-rie"
