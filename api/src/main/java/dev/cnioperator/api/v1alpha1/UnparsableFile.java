package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.Objects;

/** A file in a configuration directory that does not parse as CNI configuration. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class UnparsableFile {

  @JsonPropertyDescription("The file's path on the node.")
  private String file;

  @JsonPropertyDescription("Why it does not parse.")
  private String error;

  public String getFile() {
    return file;
  }

  public void setFile(String file) {
    this.file = file;
  }

  public UnparsableFile withFile(String file) {
    this.file = file;
    return this;
  }

  public String getError() {
    return error;
  }

  public void setError(String error) {
    this.error = error;
  }

  public UnparsableFile withError(String error) {
    this.error = error;
    return this;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    return o instanceof UnparsableFile other
        && Objects.equals(file, other.file)
        && Objects.equals(error, other.error);
  }

  @Override
  public int hashCode() {
    return Objects.hash(file, error);
  }

  @Override
  public String toString() {
    return "UnparsableFile{" + "file=" + file + ", error=" + error + "}";
  }
}
